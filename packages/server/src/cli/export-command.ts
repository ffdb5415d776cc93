/** `svc export`: every stored object, secret record and installed plugin's code as multi-document YAML. */

import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { INDEX_SNAPSHOTS_RECORDS, SESSIONS_RECORDS, SIGN_IN_FAILURES_RECORDS } from '@svc/plugin-api';
import { openStore, type StoreLocation } from '../store/open-store.js';
import type { Store } from '../store/types.js';
import { HOST_VERSION } from '../version.js';
import {
  authorityDocument,
  BACKUP_API_VERSION,
  type BackupHeader,
  HEADER_KIND,
  objectIdentity,
  pluginCodeDocument,
  type ResourceEntry,
  recordDocument,
  secretsDocument,
} from './backup-format.js';
import { BackupDigest } from './backup-integrity.js';
import {
  describeLocation,
  exitCodeOf,
  helpOf,
  parseCommandLine,
  STORE_FLAGS,
  STORE_OPTIONS,
  STORE_USAGE,
  storeLocationOf,
} from './offline-command.js';
import { packInstalledPlugins } from './plugin-code-backup.js';
import { readAuthority } from './tls-backup.js';

export const EXPORT_USAGE = helpOf(
  `svc export ${STORE_USAGE} [-o FILE|-] [--no-secrets] [--no-plugin-code]`,
  `  Writes every stored object as YAML, ending with a trailer (counts, SHA-256) by which svc import refuses a file cut
  short or changed. Reads the store itself: the server may be stopped or running. More: docs/cli.md.`,
  [
    ['-o, --output FILE|-', 'where to write (default -: standard output); a file is made readable by you only'],
    ['--no-secrets', "leave out password hashes, token digests and svc's own TLS CA"],
    ['--no-plugin-code', 'leave out the code of plugins installed from archives'],
    ...STORE_FLAGS,
  ],
);

const OPTIONS = {
  ...STORE_OPTIONS,
  output: { type: 'string', short: 'o' },
  'no-secrets': { type: 'boolean' },
  'no-plugin-code': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function exportCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return exitCodeOf('export', EXPORT_USAGE, async () => {
    const { values } = parseCommandLine(args, OPTIONS);
    if (values.help) return void console.log(`usage: ${EXPORT_USAGE}`);
    const location = storeLocationOf(values, env);
    const toFile = values.output !== undefined && values.output !== '-';
    const store = await openStore(location);
    try {
      // A backup with password hashes is readable by its owner only.
      const file = toFile ? await open(values.output!, 'w', 0o600) : undefined;
      const out = file ? file.createWriteStream() : process.stdout;
      const counts = await writeBackup(store, location, out, {
        secrets: !values['no-secrets'],
        pluginCode: !values['no-plugin-code'],
      });
      if (file) await new Promise<void>((resolve, reject) => out.on('error', reject).end(resolve));
      if (counts.secrets > 0) {
        console.error(
          'svc export: warning: the backup holds password hashes and token digests; keep it as safe as the database (--no-secrets leaves them out)',
        );
      }
      console.error(
        `svc export: ${counts.objects} objects of ${counts.resources} resources, ${counts.secrets} secret records` +
          `${counts.authority ? ', the TLS CA' : ''} and ${counts.plugins} plugins' code from ` +
          `${describeLocation(location)}${toFile ? ` to ${values.output}` : ''}`,
      );
    } finally {
      await store.close();
    }
  });
}

interface Counts {
  resources: number;
  objects: number;
  secrets: number;
  plugins: number;
  /** The TLS CA of the data dir is in it. */
  authority: boolean;
}

async function writeBackup(
  store: Store,
  location: StoreLocation,
  out: Writable,
  include: { secrets: boolean; pluginCode: boolean },
): Promise<Counts> {
  // A reader that goes away (`svc export | head`) fails the write that follows, whose callback reports it: the stream's
  // 'error' event, emitted too, must not end the process unhandled.
  out.on('error', () => undefined);
  const send = (text: string) =>
    new Promise<void>((resolve, reject) => out.write(text, (error) => (error ? reject(error) : resolve())));
  // Every document goes through the digest; the trailer that ends the file carries it (backup-integrity.ts).
  const digest = new BackupDigest();
  const write = (document: unknown) => send(digest.document(document));
  const entries = await resourceEntries(store);
  const header: BackupHeader = {
    apiVersion: BACKUP_API_VERSION,
    kind: HEADER_KIND,
    metadata: { creationTimestamp: new Date().toISOString() },
    source: { dialect: store.dialect, revision: await store.currentRevision(), hostVersion: HOST_VERSION },
    integrity: { algorithm: 'sha256' },
    resources: entries,
  };
  await write(header);
  const counts: Counts = { resources: entries.length, objects: 0, secrets: 0, plugins: 0, authority: false };
  for (const entry of entries) {
    for await (const batch of store.scan(entry.resource)) {
      for (const record of batch) await write(recordDocument(entry, record.name, record.value));
      counts.objects += batch.length;
    }
  }
  if (include.secrets) {
    // Sessions stay behind (a restore signs everyone out, and a backup needs no live sign-ins), and so do index
    // snapshots (derived from the objects, and bound to this store's history) and sign-in failures (minutes long).
    const left = new Set([SESSIONS_RECORDS, INDEX_SNAPSHOTS_RECORDS, SIGN_IN_FAILURES_RECORDS]);
    const carried = (kind: string) => !left.has(kind);
    for (const kind of (await store.secrets.kinds()).filter(carried)) {
      for await (const batch of store.secrets.scan(kind)) {
        await write(secretsDocument(kind, batch));
        counts.secrets += batch.length;
      }
    }
  }
  if (include.pluginCode) {
    for await (const [name, archive] of packInstalledPlugins(location.dataDir)) {
      await write(pluginCodeDocument(name, archive));
      counts.plugins++;
    }
  }
  // The CA's key is a secret like the password hashes: left out with them.
  const authority = include.secrets ? await readAuthority(location.dataDir) : undefined;
  if (authority) {
    await write(authorityDocument(authority));
    counts.authority = true;
  }
  await send(digest.trailer({ objects: counts.objects, secretRecords: counts.secrets, plugins: counts.plugins }));
  return counts;
}

/** Each resource with the apiVersion and kind of its first object (records of another shape are written raw). */
async function resourceEntries(store: Store): Promise<ResourceEntry[]> {
  const entries: ResourceEntry[] = [];
  for (const resource of await store.resources()) {
    for await (const [first] of store.scan(resource, 1)) {
      const identity = first && objectIdentity(first.value, first.name);
      entries.push({ resource, apiVersion: identity?.apiVersion ?? '', kind: identity?.kind ?? '' });
      break;
    }
  }
  return entries;
}
