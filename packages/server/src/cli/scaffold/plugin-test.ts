/** The scaffold's test of the plugin in a real svc: `src/plugin.test.ts`, through `@svc/plugin-testing`. */
import { groupsOf, type ScaffoldOptions } from './options.js';

export function pluginTestTs(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `/**
 * The plugin in a real svc: @svc/plugin-testing starts one in this process, on a temporary SQLite database, with this
 * folder's plugin started (as \`npm test\` built it first: see "pretest" in package.json), and signs a client in as
 * its super administrator. Everything is asked over HTTP, as users and the console do.
 */
import path from 'node:path';
import { startSvc, type TestSvc } from '@svc/plugin-testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, type Note, VERSION } from './note.js';

describe('${o.name} in svc', () => {
  let svc: TestSvc;
  const notes = () => svc.client.resource<Note>({ group: GROUP, version: VERSION, plural: 'notes' });

  beforeAll(async () => {
    svc = await startSvc({ plugins: [path.resolve(import.meta.dirname, '..')] });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('fills a new note\\'s status', async () => {
    await notes().create({
      apiVersion: \`\${GROUP}/\${VERSION}\`,
      kind: 'Note',
      metadata: { name: 'first' },
      spec: { title: 'First', body: 'Hello there, world', published: true },
    });
    await expect.poll(async () => (await notes().get('first')).status?.phase).toBe('Published');
    expect((await notes().get('first')).status).toMatchObject({ words: 3, excerpt: 'Hello there, world' });
  });

  it('files a draft and counts notes', async () => {
    const draft = await svc.client.request<Note>('POST', '/apis/${g.console}/${g.version}/drafts', {
      body: { title: 'Second', body: 'Not yet' },
    });
    expect(draft.metadata.name).toMatch(/^draft-/);
    expect(draft.spec).toEqual({ title: 'Second', body: 'Not yet', published: false });
    const stats = await svc.client.request('GET', '/apis/${g.console}/${g.version}/stats');
    expect(stats).toEqual({ total: 2, published: 1, drafts: 1 });
  });

  it('shows published notes to anonymous visitors', async () => {
    const answer = await fetch(\`\${svc.url}/apis/${g.public}/${g.version}/notes\`);
    expect(answer.status).toBe(200);
    const list = (await answer.json()) as { total: number; items: { name: string; title: string }[] };
    expect(list.total).toBe(1);
    expect(list.items.map((n) => [n.name, n.title])).toEqual([['first', 'First']]);
  });
});
`;
}
