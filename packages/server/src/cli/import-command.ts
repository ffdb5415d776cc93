/** `svc import`: a backup written by `svc export` into an empty store (see backup-format.ts). */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Composer, type Document, Parser } from 'yaml';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/types.js';
import { type BackupEntry, encodeRestored, readEntry, readHeader } from './backup-format.js';
import {
  describeLocation,
  exitCodeOf,
  parseCommandLine,
  STORE_HELP,
  STORE_OPTIONS,
  STORE_USAGE,
  storeLocationOf,
  UsageError,
} from './offline-command.js';
import { installedPluginsDir, unpackInstalledPlugin } from './plugin-code-backup.js';

export const IMPORT_USAGE = `svc import ${STORE_USAGE} -f FILE|-
  Restores a backup written by svc export into an EMPTY store (it refuses one that holds any object or secret record)
  with the server stopped: every object with its name, uid, labels, annotations, finalizers, status and
  metadata.version; metadata.resourceVersion is renumbered, after the source's last revision. Secret records are
  restored as they were; plugins' code goes to <data dir>/plugins. Moves data between SQLite and PostgreSQL.
${STORE_HELP}`;

const OPTIONS = {
  ...STORE_OPTIONS,
  filename: { type: 'string', short: 'f' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Writes in flight at once: enough for SQLite's group commit and PostgreSQL's pool to batch them. */
const CONCURRENCY = 64;

export function importCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return exitCodeOf('import', IMPORT_USAGE, async () => {
    const { values } = parseCommandLine(args, OPTIONS);
    if (values.help) return void console.log(`usage: ${IMPORT_USAGE}`);
    if (values.filename === undefined) throw new UsageError('-f FILE (or -f - for standard input) is required');
    const { entries, revision } = parseBackup(
      values.filename === '-' ? await readStdin() : await readFile(values.filename, 'utf8'),
    );
    const location = { ...storeLocationOf(values, env), create: true };
    const store = await openStore(location);
    try {
      await refuseNonEmpty(store, describeLocation(location));
      for (const entry of entries) if (entry.type === 'plugin') refusePluginFolder(location.dataDir, entry.name);
      // Revisions continue after the source's: a client's resourceVersion from before is never reused, and a watch
      // resuming from one gets a 410 and re-lists.
      await store.skipTo(revision);
      const counts = { objects: 0, secrets: 0, plugins: 0 };
      const pending: Array<Promise<unknown>> = [];
      for (const entry of entries) {
        if (entry.type === 'plugin') {
          await unpackInstalledPlugin(location.dataDir, entry.name, entry.archive);
          counts.plugins++;
          continue;
        }
        pending.push(restore(store, entry));
        if (entry.type === 'secrets') counts.secrets += entry.records.length;
        else counts.objects++;
        if (pending.length >= CONCURRENCY) await Promise.all(pending.splice(0));
      }
      await Promise.all(pending);
      console.error(
        `svc import: ${counts.objects} objects, ${counts.secrets} secret records and ${counts.plugins} plugins' code ` +
          `into ${describeLocation(location)}`,
      );
    } finally {
      await store.close();
    }
  });
}

/**
 * Every document of the file, checked before anything is written (a broken file writes nothing). Each document's
 * syntax tree is dropped as soon as it is read: the plain values take a fraction of its memory.
 */
function parseBackup(text: string): { entries: BackupEntry[]; revision: number } {
  const values: unknown[] = [];
  const composer = new Composer();
  const take = (document: Document.Parsed) => {
    if (document.errors.length > 0) throw new Error(`document ${values.length + 1}: ${document.errors[0]!.message}`);
    values.push(document.toJS());
  };
  for (const document of composer.compose(new Parser().parse(text))) take(document);
  for (const document of composer.end()) take(document);
  const { resources, revision } = readHeader(values[0]);
  return { entries: values.slice(1).map((value, i) => readEntry(value, resources, i + 2)), revision };
}

async function restore(store: Store, entry: Exclude<BackupEntry, { type: 'plugin' }>): Promise<void> {
  switch (entry.type) {
    case 'object':
      await store.create(entry.resource, entry.name, (revision) => encodeRestored(entry.object, revision));
      return;
    case 'record':
      await store.create(entry.resource, entry.name, () => entry.value);
      return;
    case 'secrets':
      for (const [name, value] of entry.records) await store.secrets.put(entry.kind, name, value);
  }
}

async function refuseNonEmpty(store: Store, where: string): Promise<void> {
  const resources = await store.resources();
  const kinds = await store.secrets.kinds();
  if (resources.length === 0 && kinds.length === 0) return;
  const held =
    resources.length > 0 ? `objects of ${resources.length} resources (${resources[0]}, …)` : 'secret records';
  throw new Error(
    `${where} is not empty: it holds ${held}. Import into a new data directory, or a new PostgreSQL database or ` +
      'schema (--database-schema), and point the server at it',
  );
}

/** Before anything is written: a plugin folder already there would stop the import half way. */
function refusePluginFolder(dataDir: string, name: string): void {
  const folder = path.join(installedPluginsDir(dataDir), name);
  if (existsSync(folder)) {
    throw new Error(`${folder} exists already: remove it, or import into an empty data directory`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
