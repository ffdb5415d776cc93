/**
 * The scaffold's TypeScript: the entry, the Note model, the reconciler (pure logic plus the reconcile function), the
 * custom APIs, and a test of the reconciler's logic.
 */
import { groupsOf, type ScaffoldOptions } from './options.js';

export function indexTs(o: ScaffoldOptions): string {
  return `import { definePlugin } from '@svc/plugin-api';
import { noteModel } from './note.js';
import { noteReconciler } from './reconciler.js';
import { draftRoute, publicRoutes, statsRoute } from './routes.js';

/**
 * ${o.displayName}. Everything registered here is removed again when the plugin stops; objects users created stay
 * stored and come back with the plugin.
 */
export default definePlugin({
  async start(ctx) {
    // Registers the model (and its generated API) and builds its indexes from what is stored.
    await ctx.models.register(noteModel);
    // Keeps each note's status in step with its spec.
    ctx.reconcilers.add(noteReconciler);
    ctx.routes.add(statsRoute(ctx.client));
    ctx.routes.add(draftRoute(ctx.client));
    for (const route of publicRoutes(ctx.client)) ctx.routes.add(route);
    ctx.logger.info('${o.name} started');
  },
});
`;
}

export function noteTs(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `import type { ExtensionObject, FromSchema, ModelDefinition } from '@svc/plugin-api';

export const GROUP = '${g.own}';
export const VERSION = '${g.version}';

/**
 * A note's spec, as its JSON Schema (checked on every write) and, derived from it, its TypeScript type: written once,
 * so the two cannot drift. Declared \`as const\` so FromSchema can read it.
 */
export const NOTE_SPEC_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: 'string', maxLength: 10000 },
    /** 0 (lowest) to 10; the public list shows higher priorities first. */
    priority: { type: 'integer', minimum: 0, maximum: 10 },
    /** Drafts (the default) are not shown by the public API. */
    published: { type: 'boolean' },
  },
} as const;

export type NoteSpec = FromSchema<typeof NOTE_SPEC_SCHEMA>;

/** Written by the reconciler through the status subresource, never by users. */
export interface NoteStatus {
  phase: 'Draft' | 'Published';
  words: number;
  excerpt: string;
  /** The note's metadata.version this status was computed from. */
  observedVersion: number;
}

export type Note = ExtensionObject<NoteSpec, Partial<NoteStatus>>;

/** The Note model: \`/apis/${g.own}/${g.version}/notes\`. */
export const noteModel: ModelDefinition<Note> = {
  group: GROUP,
  version: VERSION,
  kind: 'Note',
  plural: 'notes',
  singular: 'note',
  schema: {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: NOTE_SPEC_SCHEMA,
      status: { type: 'object' },
    },
  },
  statusSubresource: true,
  // Usable in fieldSelector and sort (\`?fieldSelector=spec.published=true&sort=spec.priority,desc\`) and by
  // ctx.client.count / countBy, all answered from the index.
  indexes: [
    { name: 'spec.title', unique: true },
    { name: 'spec.priority' },
    // A note without spec.published is a draft: the index says 'false' for it, so drafts can be selected and counted.
    { name: 'spec.published', indexFunc: (note) => String(note.spec?.published === true) },
  ],
};

/** What the public API shows of a note. Pure. */
export function publicNote(note: Note) {
  return {
    name: note.metadata.name,
    title: note.spec?.title ?? '',
    body: note.spec?.body ?? '',
    priority: note.spec?.priority ?? 0,
    createdAt: note.metadata.creationTimestamp,
  };
}
`;
}

export function reconcilerTs(o: ScaffoldOptions): string {
  return `/**
 * The Note controller: keeps each note's status (phase, word count, excerpt) in step with its spec. nextStatus is
 * pure, so reconciler.test.ts can test it without a server.
 */
import type { ReconcileContext, ReconcileRequest, ReconcilerDefinition } from '@svc/plugin-api';
import { noteModel, type Note, type NoteStatus } from './note.js';

export const EXCERPT_LENGTH = 80;

/** Pure. */
export function countWords(text: string | undefined): number {
  const trimmed = (text ?? '').trim();
  return trimmed === '' ? 0 : trimmed.split(/\\s+/).length;
}

/** The first EXCERPT_LENGTH characters of the text, whitespace collapsed, with … when cut. Pure. */
export function excerptOf(text: string | undefined): string {
  const flat = (text ?? '').replace(/\\s+/g, ' ').trim();
  return flat.length <= EXCERPT_LENGTH ? flat : \`\${flat.slice(0, EXCERPT_LENGTH - 1).trimEnd()}…\`;
}

/**
 * The status \`note\` should have, or undefined when its status already says so. Pure. Only a change of what is
 * computed writes a new status, so the controller's own status write (which bumps metadata.version) does not cause
 * another one.
 */
export function nextStatus(note: Note): NoteStatus | undefined {
  const phase = note.spec?.published === true ? 'Published' : 'Draft';
  const words = countWords(note.spec?.body);
  const excerpt = excerptOf(note.spec?.body);
  const current = note.status;
  if (current?.phase === phase && current.words === words && current.excerpt === excerpt) return undefined;
  return { phase, words, excerpt, observedVersion: note.metadata.version ?? 0 };
}

export async function reconcileNote({ name }: ReconcileRequest, { client }: ReconcileContext): Promise<void> {
  const note = await client.fetch<Note>(noteModel, name);
  if (!note || note.metadata.deletionTimestamp) return;
  const status = nextStatus(note);
  // A conflicting write throws; the reconciler is retried and starts over from the stored note.
  if (status) await client.updateStatus({ ...note, status });
}

export const noteReconciler: ReconcilerDefinition = {
  name: '${o.name}-note-status',
  model: noteModel,
  reconcile: reconcileNote,
};
`;
}

export function routesTs(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `/**
 * Custom APIs. Each declares its \`<group>/<version>\` and is served under \`/apis/<group>/<version><path>\`, checked
 * by the same role rules as everything else (see extensions/roles.yaml).
 */
import { type CustomRoute, defineRoute, type ExtensionClient, notFound, respond } from '@svc/plugin-api';
import { GROUP, NOTE_SPEC_SCHEMA, noteModel, publicNote, VERSION, type Note } from './note.js';

/** \`GET /apis/${g.console}/${g.version}/stats\`: counted from the spec.published index, no note is read. */
export function statsRoute(client: ExtensionClient): CustomRoute {
  return {
    apiVersion: \`console.api.${g.own}/\${VERSION}\`,
    method: 'GET',
    path: '/stats',
    async handler() {
      const byPublished = await client.countBy(noteModel, 'spec.published');
      return {
        total: await client.count(noteModel),
        published: byPublished['true'] ?? 0,
        drafts: byPublished['false'] ?? 0,
      };
    },
  };
}

/** What \`POST …/drafts\` takes: a title and a body; the route names and files the note. */
const NEW_DRAFT = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: { title: NOTE_SPEC_SCHEMA.properties.title, body: NOTE_SPEC_SCHEMA.properties.body },
} as const;

/**
 * \`POST /apis/${g.console}/${g.version}/drafts\`: a draft note from a title and a body. defineRoute gives the
 * handler the body's type from NEW_DRAFT; svc answers 400 to a body that breaks it before the handler runs.
 */
export function draftRoute(client: ExtensionClient): CustomRoute {
  return defineRoute({
    apiVersion: \`console.api.${g.own}/\${VERSION}\`,
    method: 'POST',
    path: '/drafts',
    schema: { body: NEW_DRAFT },
    async handler({ body }) {
      const note = await client.create<Note>({
        apiVersion: \`\${GROUP}/\${VERSION}\`,
        kind: 'Note',
        metadata: { name: '', generateName: 'draft-' },
        spec: { title: body.title, body: body.body, published: false },
      });
      return respond(201, note);
    },
  });
}

/**
 * The public read API, \`/apis/${g.public}/${g.version}/notes[/{name}]\`: published notes only. The role template
 * ${o.name}-role-view-public (aggregated into \`anonymous\`) opens it, and nothing else, to every visitor.
 */
export function publicRoutes(client: ExtensionClient): CustomRoute[] {
  const apiVersion = \`api.${g.own}/\${VERSION}\`;
  return [
    {
      apiVersion,
      method: 'GET',
      path: '/notes',
      async handler() {
        const list = await client.list<Note>(noteModel, {
          fieldSelector: ['spec.published=true', 'metadata.deletionTimestamp='],
          sort: 'spec.priority,desc',
        });
        return { total: list.total, items: list.items.map(publicNote) };
      },
    },
    {
      apiVersion,
      method: 'GET',
      path: '/notes/:name',
      async handler({ params }) {
        const note = await client.fetch<Note>(noteModel, params.name ?? '');
        if (!note || note.spec?.published !== true || note.metadata.deletionTimestamp) {
          throw notFound(\`note "\${params.name}" not found\`);
        }
        return publicNote(note);
      },
    },
  ];
}
`;
}

export function reconcilerTestTs(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `import { describe, expect, it } from 'vitest';
import type { Note } from './note.js';
import { countWords, excerptOf, EXCERPT_LENGTH, nextStatus } from './reconciler.js';

const note = (spec: Note['spec'], status?: Note['status'], version = 2): Note => ({
  apiVersion: '${g.own}/${g.version}',
  kind: 'Note',
  metadata: { name: 'n', version },
  spec,
  ...(status ? { status } : {}),
});

describe('the note controller', () => {
  it('counts words, whatever the whitespace', () => {
    expect(countWords(undefined)).toBe(0);
    expect(countWords('   ')).toBe(0);
    expect(countWords(' one\\ttwo\\n three ')).toBe(3);
  });

  it('cuts long bodies into an excerpt of at most EXCERPT_LENGTH characters', () => {
    expect(excerptOf('short  and\\nsweet')).toBe('short and sweet');
    const excerpt = excerptOf('word '.repeat(100));
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_LENGTH);
    expect(excerpt.endsWith('…')).toBe(true);
  });

  it('computes a first status: a draft unless published, with the observed version', () => {
    expect(nextStatus(note({ title: 'T', body: 'Hello there' }))).toEqual({
      phase: 'Draft',
      words: 2,
      excerpt: 'Hello there',
      observedVersion: 2,
    });
    expect(nextStatus(note({ title: 'T', published: true }))?.phase).toBe('Published');
  });

  it('writes nothing when the status already says so, whatever the version', () => {
    const current = nextStatus(note({ title: 'T', body: 'a b c' }))!;
    expect(nextStatus(note({ title: 'T', body: 'a b c' }, current, 7))).toBeUndefined();
  });

  it('writes a new status when the spec changes what it says', () => {
    const current = nextStatus(note({ title: 'T', body: 'a b c' }))!;
    const next = nextStatus(note({ title: 'T', body: 'a b c d', published: true }, current, 5));
    expect(next).toMatchObject({ phase: 'Published', words: 4, observedVersion: 5 });
  });
});
`;
}
