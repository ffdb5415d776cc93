/**
 * `svc import`: a backup written by `svc export` into an empty store (see backup-format.ts). All or nothing: the file's
 * trailer and digest are checked (backup-integrity.ts) and every object as a create would check it
 * (backup-validation.ts) before anything is written; then the store is filled in one transaction (Store.restore).
 */
import { readFile } from 'node:fs/promises';
import type { ModelDefinition } from '@svc/plugin-api';
import { Composer, type Document, Parser } from 'yaml';
import { openStore } from '../store/open-store.js';
import type { RestoredObject, RestoredSecret, Store } from '../store/types.js';
import type { CertificatePair } from '../tls/certificates.js';
import { makePrivateTree } from '../util/private-files.js';
import { type BackupCounts, encodeRestored, readEntry, readHeader } from './backup-format.js';
import { checkCounts, verifyBackup } from './backup-integrity.js';
import { type PositionedEntry, validateBackup } from './backup-validation.js';
import {
  describeLocation,
  exitCodeOf,
  helpOf,
  parseCommandLine,
  STORE_FLAGS,
  STORE_OPTIONS,
  STORE_USAGE,
  storeLocationOf,
  UsageError,
} from './offline-command.js';
import { stagePluginCode } from './plugin-code-backup.js';
import { refuseAuthorityThere, writeAuthority } from './tls-backup.js';

export const IMPORT_USAGE = helpOf(
  `svc import ${STORE_USAGE} -f FILE|- [--unverified]`,
  `  Restores a backup of svc export into an empty store, the server stopped, all or nothing: a file cut short,
  changed, or holding an object a create would refuse writes nothing. Moves data between SQLite and PostgreSQL.`,
  [
    ['-f, --filename FILE|-', 'the backup (-: standard input)'],
    ['--unverified', "accept a backup without a trailer (an older svc's)"],
    ...STORE_FLAGS,
  ],
);

const OPTIONS = {
  ...STORE_OPTIONS,
  filename: { type: 'string', short: 'f' },
  unverified: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `coreModels`: the models the server registers itself, whose objects are checked fully (backup-validation.ts). */
export function importCommand(
  args: string[],
  coreModels: readonly ModelDefinition[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  return exitCodeOf('import', IMPORT_USAGE, async () => {
    const { values } = parseCommandLine(args, OPTIONS);
    if (values.help) return void console.log(`usage: ${IMPORT_USAGE}`);
    if (values.filename === undefined) throw new UsageError('-f FILE (or -f - for standard input) is required');
    const file = values.filename === '-' ? 'the backup on standard input' : values.filename;
    const bytes = values.filename === '-' ? await readStdin() : await readFile(values.filename);
    const backup = refusedAs(file, () => checkedBackup(bytes, coreModels, values.unverified === true));
    if (!backup.verified) {
      console.error(`svc import: warning: ${file} has no trailer: imported without knowing whether it is whole`);
    }
    // The server lock too (SQLite): no server may start on the store while it is being filled.
    const location = { ...storeLocationOf(values, env), create: true, server: true };
    // The data directory (SQLite's, and plugins' code and the CA whatever the database) is its owner's alone.
    if (!location.databaseUrl || backup.plugins.length > 0 || backup.authority) {
      const widened = await makePrivateTree(location.dataDir);
      if (widened.length > 0) {
        console.error(`svc import: ${location.dataDir} was readable by other users: removed their access`);
      }
    }
    const store = await openStore(location);
    try {
      await refuseNonEmpty(store, describeLocation(location));
      if (backup.authority) refuseAuthorityThere(location.dataDir);
      const plugins = await stagePluginCode(location.dataDir, backup.plugins);
      try {
        await store.restore(backup.revision, backup.objects, backup.secrets);
      } catch (error) {
        await plugins.discard();
        throw new Error(
          `writing ${describeLocation(location)} failed, and nothing was written: ${(error as Error).message}`,
        );
      }
      await plugins.place();
      if (backup.authority) await writeAuthority(location.dataDir, backup.authority);
      console.error(
        `svc import: ${backup.objects.length} objects, ${backup.secrets.length} secret records` +
          `${backup.authority ? ', the TLS CA' : ''} and ${backup.plugins.length} plugins' code into ` +
          describeLocation(location),
      );
    } finally {
      await store.close();
    }
  });
}

interface CheckedBackup {
  revision: number;
  objects: RestoredObject[];
  secrets: RestoredSecret[];
  plugins: Array<{ name: string; archive: Buffer }>;
  authority?: CertificatePair;
  verified: boolean;
}

/** Runs `check`, naming the file in what it throws: nothing has been written at this point. */
function refusedAs<T>(file: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new Error(`${file} is refused, and nothing was written: ${(error as Error).message}`);
  }
}

/** Every check before the first write: the trailer and digest, each document's form, each object as a create would. */
function checkedBackup(bytes: Buffer, coreModels: readonly ModelDefinition[], unverified: boolean): CheckedBackup {
  const { text, trailer } = verifyBackup(bytes, unverified);
  const values = parseDocuments(text);
  const { resources, revision } = readHeader(values[0]);
  const entries: PositionedEntry[] = values
    .slice(1)
    .map((value, i) => ({ position: i + 2, entry: readEntry(value, resources, i + 2) }));
  const backup: CheckedBackup = { revision, objects: [], secrets: [], plugins: [], verified: trailer !== undefined };
  for (const { entry } of entries) {
    if (entry.type === 'object') {
      const { resource, name, object } = entry;
      backup.objects.push({ resource, name, encode: (rev) => encodeRestored(object, rev) });
    } else if (entry.type === 'record') {
      backup.objects.push({ resource: entry.resource, name: entry.name, encode: () => entry.value });
    } else if (entry.type === 'secrets') {
      for (const [name, value] of entry.records) backup.secrets.push({ kind: entry.kind, name, value });
    } else if (entry.type === 'authority') backup.authority = { cert: entry.cert, key: entry.key };
    else backup.plugins.push(entry);
  }
  const found: BackupCounts = {
    documents: values.length,
    objects: backup.objects.length,
    secretRecords: backup.secrets.length,
    plugins: backup.plugins.length,
  };
  if (trailer) checkCounts(trailer, found);
  validateBackup(entries, coreModels);
  return backup;
}

/**
 * Every document of the text. Each document's syntax tree is dropped as soon as it is read: the plain values take a
 * fraction of its memory.
 */
function parseDocuments(text: string): unknown[] {
  const values: unknown[] = [];
  const composer = new Composer();
  const take = (document: Document.Parsed) => {
    if (document.errors.length > 0) throw new Error(`document ${values.length + 1}: ${document.errors[0]!.message}`);
    values.push(document.toJS());
  };
  for (const document of composer.compose(new Parser().parse(text))) take(document);
  for (const document of composer.end()) take(document);
  return values;
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

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
