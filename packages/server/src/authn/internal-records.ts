import type { SecretStore } from '../store/types.js';

/**
 * Authentication keeps its own records in the store's secret store, outside the revisioned history: password hashes
 * (CREDENTIALS_RECORDS), session records (SESSIONS_RECORDS) and token digests (TOKEN_DIGESTS_RECORDS) never reach a
 * watch, a list or a history scan (a backup, `svc export`, carries the password hashes and token digests, never
 * sessions). The kinds are named as the store resources earlier versions kept them in, which the store moves here on
 * open (store/records.ts, SECRET_RESOURCES_ONCE_IN_HISTORY).
 *
 * JSON records of one kind, last writer wins (only this process's own code writes them). */
export class InternalRecords<T> {
  constructor(
    private readonly secrets: SecretStore,
    readonly kind: string,
  ) {}

  async get(name: string): Promise<T | undefined> {
    const value = await this.secrets.get(this.kind, name);
    return value ? (JSON.parse(value.toString('utf8')) as T) : undefined;
  }

  /** Creates or replaces the record. */
  put(name: string, value: T): Promise<void> {
    return this.secrets.put(this.kind, name, Buffer.from(JSON.stringify(value)));
  }

  /** Replaces the record only if it still exists (a late refresh must not bring back a record just removed). */
  replace(name: string, value: T): Promise<boolean> {
    return this.secrets.replace(this.kind, name, Buffer.from(JSON.stringify(value)));
  }

  /** Removes the record; true when there was one. */
  delete(name: string): Promise<boolean> {
    return this.secrets.delete(this.kind, name);
  }

  /** Every record, in batches. */
  async *entries(): AsyncIterable<Array<[string, T]>> {
    for await (const batch of this.secrets.scan(this.kind)) {
      yield batch.map(([name, value]) => [name, JSON.parse(value.toString('utf8')) as T]);
    }
  }
}
