/**
 * The backup file of `svc export` and `svc import`: multi-document YAML. Pure functions between store records and
 * documents, so the format is tested without a store.
 *
 * 1. A `Backup` header: where it came from, and which resource (the store's `<group>/<plural>` key) holds each
 *    apiVersion and kind, since the import opens no model registry to ask.
 * 2. Every object as the API serves it, minus `metadata.resourceVersion` (a store revision: the import gives new ones,
 *    after the source's revision).
 *    A record that is not such an object (or not its resource's usual kind) is a `StoredRecord` with its bytes.
 * 3. `SecretRecords`: the store's secret records of one kind (password hashes, token digests), base64 as in a
 *    Kubernetes Secret's `data`.
 * 4. `PluginCode`: the folder of a plugin installed from an archive, as a gzipped tar, base64; and a
 *    `CertificateAuthority`: the CA svc made under `<data dir>/tls`, PEM (tls-backup.ts).
 * 5. A `BackupTrailer`, last: how many documents, objects, secret records and plugins precede it, and the SHA-256 of
 *    every byte before it (backup-integrity.ts). The header announces it (`integrity: {algorithm: sha256}`), so a
 *    file cut short is told from a backup of a version that wrote none.
 */
import { stringify } from 'yaml';

export const BACKUP_API_VERSION = 'backup.svc.run/v1';
/** The kinds of a backup's first and last documents. */
export const HEADER_KIND = 'Backup';
export const TRAILER_KIND = 'BackupTrailer';

/**
 * One document of the file. Written as YAML 1.1 would need it, so strings such as `yes`, `on` or a timestamp are quoted
 * and read back as strings by YAML 1.1 tools too (kubectl, PyYAML), not only by YAML 1.2 ones (the import).
 */
export function yamlDocument(document: unknown): string {
  return `---\n${stringify(document, { lineWidth: 0, version: '1.1' })}`;
}

export interface ResourceEntry {
  resource: string;
  apiVersion: string;
  kind: string;
}

export interface BackupHeader {
  apiVersion: typeof BACKUP_API_VERSION;
  kind: typeof HEADER_KIND;
  metadata: { creationTimestamp: string };
  source: { dialect: string; revision: number; hostVersion: string };
  /** Present when a BackupTrailer ends the file (every backup of this version). */
  integrity?: { algorithm: 'sha256' };
  resources: ResourceEntry[];
}

/** What the trailer counts: the documents before it (the header included), and what they restore. */
export interface BackupCounts {
  documents: number;
  objects: number;
  secretRecords: number;
  plugins: number;
}

export interface BackupTrailer extends BackupCounts {
  apiVersion: typeof BACKUP_API_VERSION;
  kind: typeof TRAILER_KIND;
  /** Hex SHA-256 of every byte of the file before the trailer's `---` line. */
  sha256: string;
}

/** What one document of a backup restores. */
export type BackupEntry =
  | { type: 'object'; resource: string; name: string; object: Record<string, unknown> }
  | { type: 'record'; resource: string; name: string; value: Buffer }
  | { type: 'secrets'; kind: string; records: Array<[string, Buffer]> }
  | { type: 'plugin'; name: string; archive: Buffer }
  | { type: 'authority'; cert: string; key: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The apiVersion and kind of a stored value, when it is an API object named `name`. */
export function objectIdentity(value: Buffer, name: string): { apiVersion: string; kind: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed.metadata) || parsed.metadata.name !== name) return undefined;
  const { apiVersion, kind } = parsed;
  return typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
}

/** The document for one stored record of `entry`'s resource. */
export function recordDocument(entry: ResourceEntry, name: string, value: Buffer): Json {
  const identity = objectIdentity(value, name);
  if (identity && identity.apiVersion === entry.apiVersion && identity.kind === entry.kind) {
    const object = JSON.parse(value.toString('utf8')) as Json & { metadata: Json };
    delete object.metadata.resourceVersion;
    return object;
  }
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: 'StoredRecord',
    metadata: { name },
    resource: entry.resource,
    value: value.toString('base64'),
  };
}

export function secretsDocument(kind: string, records: Array<[string, Buffer]>): Json {
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: 'SecretRecords',
    metadata: { name: kind },
    data: Object.fromEntries(records.map(([name, value]) => [name, value.toString('base64')])),
  };
}

export function pluginCodeDocument(name: string, archive: Buffer): Json {
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: 'PluginCode',
    metadata: { name },
    archive: archive.toString('base64'),
  };
}

export function authorityDocument(pair: { cert: string; key: string }): Json {
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: 'CertificateAuthority',
    metadata: { name: 'tls' },
    certificate: pair.cert,
    key: pair.key,
  };
}

/**
 * Checks the header (the first document) and answers the resource of each apiVersion and kind, the source's
 * revision (0 when the header does not say), and whether it announces a trailer.
 */
export function readHeader(document: unknown): {
  resources: Map<string, string>;
  revision: number;
  announcesTrailer: boolean;
} {
  if (!isObject(document) || document.apiVersion !== BACKUP_API_VERSION || document.kind !== HEADER_KIND) {
    throw new Error(`not an svc backup: the first document must be apiVersion ${BACKUP_API_VERSION}, kind Backup`);
  }
  const resources = new Map<string, string>();
  for (const [i, entry] of (Array.isArray(document.resources) ? document.resources : []).entries()) {
    if (!isObject(entry) || ![entry.resource, entry.apiVersion, entry.kind].every((v) => typeof v === 'string')) {
      throw new Error(`document 1: resources[${i}] needs resource, apiVersion and kind`);
    }
    resources.set(`${entry.apiVersion} ${entry.kind}`, entry.resource as string);
  }
  const revision = isObject(document.source) ? document.source.revision : undefined;
  return {
    resources,
    revision: Number.isSafeInteger(revision) && (revision as number) > 0 ? (revision as number) : 0,
    announcesTrailer: document.integrity !== undefined,
  };
}

/**
 * The trailer, when `document` is one (apiVersion and kind say so); throws when it claims to be one and is not whole.
 */
export function readTrailer(document: unknown): BackupTrailer | undefined {
  if (!isObject(document) || document.apiVersion !== BACKUP_API_VERSION || document.kind !== TRAILER_KIND) {
    return undefined;
  }
  for (const count of ['documents', 'objects', 'secretRecords', 'plugins'] as const) {
    const value = document[count];
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new Error(`the trailer is damaged: ${count} must be a count, got ${JSON.stringify(value)}`);
    }
  }
  if (typeof document.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(document.sha256)) {
    throw new Error('the trailer is damaged: sha256 must be 64 hexadecimal digits');
  }
  return document as unknown as BackupTrailer;
}

/** What a document after the header restores; `position` (1-based) names it in errors. */
export function readEntry(document: unknown, resources: Map<string, string>, position: number): BackupEntry {
  const fail = (message: string): never => {
    throw new Error(`document ${position}: ${message}`);
  };
  if (!isObject(document)) return fail('is not a mapping');
  const name = isObject(document.metadata) ? document.metadata.name : undefined;
  if (typeof name !== 'string' || name === '') return fail('has no metadata.name');
  if (document.apiVersion === BACKUP_API_VERSION) {
    switch (document.kind) {
      case 'StoredRecord':
        if (typeof document.resource !== 'string') fail('a StoredRecord needs resource');
        return { type: 'record', resource: document.resource as string, name, value: base64(document.value, fail) };
      case 'SecretRecords': {
        if (!isObject(document.data)) fail('SecretRecords needs data');
        const records = Object.entries(document.data as Json).map(([key, value]): [string, Buffer] => [
          key,
          base64(value, fail),
        ]);
        return { type: 'secrets', kind: name, records };
      }
      case 'PluginCode':
        return { type: 'plugin', name, archive: base64(document.archive, fail) };
      case 'CertificateAuthority':
        if (typeof document.certificate !== 'string' || typeof document.key !== 'string')
          fail('a CertificateAuthority needs certificate and key');
        return { type: 'authority', cert: document.certificate as string, key: document.key as string };
      default:
        return fail(`unknown kind "${String(document.kind)}" of ${BACKUP_API_VERSION}`);
    }
  }
  const resource = resources.get(`${String(document.apiVersion)} ${String(document.kind)}`);
  if (!resource)
    return fail(`the header lists no resource for apiVersion ${document.apiVersion}, kind ${document.kind}`);
  return { type: 'object', resource, name, object: document };
}

/** The bytes to store for an object: as the API serves it, with its new revision as `metadata.resourceVersion`. */
export function encodeRestored(object: Json, revision: number): Buffer {
  return Buffer.from(
    JSON.stringify({ ...object, metadata: { ...(object.metadata as Json), resourceVersion: String(revision) } }),
  );
}

function base64(value: unknown, fail: (message: string) => never): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value))
    return fail('holds a value that is not base64');
  return Buffer.from(value, 'base64');
}
