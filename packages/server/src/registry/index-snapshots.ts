/**
 * Index snapshots: when the server stops, each large model's index records are written to the store, and the next
 * start reads them back and applies the history since, instead of decoding every stored object again (the build's
 * cost at a million objects: docs/performance.md, "A million objects").
 *
 * A snapshot lives beside the data it describes, in the store's secret records (outside the history, never in a
 * backup), so a store replaced or restored never meets another store's snapshot. It is used only when it is provably
 * current once brought up to date:
 * - its fingerprint matches: the snapshot format, svc's version, the model's indexes (with each indexFunc's source)
 *   and, for a plugin's model, the digest of the plugin's code by content (the same on every replica holding the same
 *   files), since an indexFunc may call other code;
 * - the history since its revision is still kept (compaction has not passed it);
 * - its bytes hash to the digest its header records (two replicas writing at once cannot mix their chunks).
 * Otherwise the model's index is built from the stored objects as before, and the unusable snapshot is removed.
 *
 * Records are written only when no write is in flight (the object service applies a write to the index before it
 * commits, and takes it back if the commit fails), and with a revision every change up to which is in them. Changes
 * after that revision may be in them too: replaying a change sets an object's record to what it says, so applying it
 * twice is harmless.
 */

import { createHash, randomUUID } from 'node:crypto';
import { INDEX_SNAPSHOTS_RECORDS } from '@svc/plugin-api';
import type { NormalizedModel } from '../objects/model-definition.js';
import type { SecretStore } from '../store/types.js';
import { HOST_VERSION } from '../version.js';

/** Bumped whenever what a record holds, or how, changes. */
const FORMAT = 1;

export interface IndexSnapshotOptions {
  /** Models with fewer objects get no snapshot (SVC_INDEX_SNAPSHOTS): their build from the store is quick. */
  minObjects: number;
  /** Records per stored chunk (a chunk is one secret record; PostgreSQL sends each as one parameter). */
  recordsPerChunk?: number;
}

interface SnapshotHeader {
  format: number;
  fingerprint: string;
  revision: number;
  /** Names this snapshot's chunks, so a reader never mixes two writers' chunks. */
  token: string;
  chunks: number;
  records: number;
  sha256: string;
}

/** What a snapshot can be written from: a model's index, as JSON chunks in name order (ModelIndex.snapshotChunks). */
export interface SnapshotSource {
  resource: string;
  fingerprint: string;
  size: number;
  chunks(perChunk: number): string[];
}

export type SnapshotRead = { used: true; revision: number; records: number } | { used: false; why: string | undefined };

export class IndexSnapshots {
  readonly minObjects: number;
  private readonly recordsPerChunk: number;

  constructor(
    private readonly secrets: SecretStore,
    options: IndexSnapshotOptions,
  ) {
    this.minObjects = options.minObjects;
    this.recordsPerChunk = options.recordsPerChunk ?? 50_000;
  }

  /**
   * Reads the snapshot of `resource` into `take`, chunk by chunk, when it is usable: `used: false` with the reason
   * otherwise (undefined when there is none). `take` may have been given chunks of a snapshot that then proves
   * unusable: the caller keeps what it took apart until the read succeeds.
   */
  async read(
    resource: string,
    fingerprint: string,
    oldestResumableRevision: number,
    take: (chunk: string) => void | Promise<void>,
  ): Promise<SnapshotRead> {
    const header = parseHeader(await this.secrets.get(INDEX_SNAPSHOTS_RECORDS, resource));
    if (!header) return { used: false, why: undefined };
    const unusable = async (why: string): Promise<SnapshotRead> => {
      await this.remove(resource, header);
      return { used: false, why };
    };
    if (header.format !== FORMAT || header.fingerprint !== fingerprint) {
      return unusable('the model, its indexes or its code changed since it was written');
    }
    if (header.revision < oldestResumableRevision) {
      return unusable(`the history since its revision ${header.revision} was compacted`);
    }
    const hash = createHash('sha256');
    for (let i = 0; i < header.chunks; i++) {
      const chunk = await this.secrets.get(INDEX_SNAPSHOTS_RECORDS, chunkName(resource, header.token, i));
      if (!chunk) return unusable(`its chunk ${i} is missing`);
      hash.update(chunk);
      await take(chunk.toString('utf8'));
    }
    if (hash.digest('hex') !== header.sha256) return unusable('its chunks do not match its digest');
    return { used: true, revision: header.revision, records: header.records };
  }

  /** Removes the snapshot of `resource`, if there is one (one that could not be read). */
  async discard(resource: string): Promise<void> {
    const header = parseHeader(await this.secrets.get(INDEX_SNAPSHOTS_RECORDS, resource));
    if (header) await this.remove(resource, header);
  }

  /**
   * Writes a snapshot of each source at `revision` (taken by the caller with the chunks, see the module comment),
   * replacing the one before; a source below `minObjects` only has its old snapshot removed.
   */
  async write(snapshots: ReadonlyArray<{ source: SnapshotSource; chunks: string[] | undefined }>, revision: number) {
    for (const { source, chunks } of snapshots) {
      const previous = parseHeader(await this.secrets.get(INDEX_SNAPSHOTS_RECORDS, source.resource));
      if (chunks) {
        const token = randomUUID();
        const hash = createHash('sha256');
        for (let i = 0; i < chunks.length; i++) {
          const bytes = Buffer.from(chunks[i]!, 'utf8');
          hash.update(bytes);
          await this.secrets.put(INDEX_SNAPSHOTS_RECORDS, chunkName(source.resource, token, i), bytes);
        }
        const header: SnapshotHeader = {
          format: FORMAT,
          fingerprint: source.fingerprint,
          revision,
          token,
          chunks: chunks.length,
          records: source.size,
          sha256: hash.digest('hex'),
        };
        await this.secrets.put(INDEX_SNAPSHOTS_RECORDS, source.resource, Buffer.from(JSON.stringify(header)));
        if (previous) await this.removeChunks(source.resource, previous);
      } else if (previous) {
        await this.remove(source.resource, previous);
      }
    }
  }

  /** The chunks of each source worth a snapshot, encoded now (synchronously: see the module comment). */
  encode(sources: readonly SnapshotSource[]): Array<{ source: SnapshotSource; chunks: string[] | undefined }> {
    return sources.map((source) => ({
      source,
      chunks: source.size >= this.minObjects ? source.chunks(this.recordsPerChunk) : undefined,
    }));
  }

  private async remove(resource: string, header: SnapshotHeader): Promise<void> {
    await this.secrets.delete(INDEX_SNAPSHOTS_RECORDS, resource);
    await this.removeChunks(resource, header);
  }

  private async removeChunks(resource: string, header: SnapshotHeader): Promise<void> {
    for (let i = 0; i < header.chunks; i++) {
      await this.secrets.delete(INDEX_SNAPSHOTS_RECORDS, chunkName(resource, header.token, i));
    }
  }
}

/**
 * What a snapshot must have been written with to be read back for this model: the format, svc's version (the index
 * code that wrote its records), the model's indexes with each indexFunc's source, and the code of the plugin that
 * registered it (undefined for svc's own models).
 */
export function snapshotFingerprint(model: NormalizedModel, code: string | undefined): string {
  const indexes = model.indexes.map((index) => [
    index.name,
    index.unique,
    index.indexFunc ? String(index.indexFunc) : null,
  ]);
  const described = JSON.stringify([FORMAT, HOST_VERSION, model.resource, model.apiVersion, code ?? null, indexes]);
  return createHash('sha256').update(described).digest('hex');
}

function chunkName(resource: string, token: string, i: number): string {
  return `${resource}#${token}#${i}`;
}

function parseHeader(bytes: Buffer | undefined): SnapshotHeader | undefined {
  if (!bytes) return undefined;
  try {
    const header = JSON.parse(bytes.toString('utf8')) as SnapshotHeader;
    const valid =
      typeof header === 'object' &&
      header !== null &&
      typeof header.fingerprint === 'string' &&
      Number.isSafeInteger(header.revision) &&
      typeof header.token === 'string' &&
      Number.isSafeInteger(header.chunks) &&
      header.chunks >= 0 &&
      typeof header.sha256 === 'string';
    return valid ? header : undefined;
  } catch {
    return undefined;
  }
}
