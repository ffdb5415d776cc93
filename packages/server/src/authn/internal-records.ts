import { KeyExistsError, RevisionConflictError, type Store } from '../store/types.js';

/**
 * Store resources that hold authentication's own records. No model is registered for them, so no route serves them:
 * password hashes, session records and token digests never leave the server.
 */
export const CREDENTIALS_RESOURCE = 'security.svc.run/credentials';
export const SESSIONS_RESOURCE = 'security.svc.run/sessions';
export const TOKEN_DIGESTS_RESOURCE = 'security.svc.run/tokendigests';

/** JSON records of one internal resource, written last-writer-wins (only this process's own code writes them). */
export class InternalRecords<T> {
  constructor(
    private readonly store: Store,
    readonly resource: string,
  ) {}

  async get(name: string): Promise<T | undefined> {
    const record = await this.store.get(this.resource, name);
    return record ? (JSON.parse(record.value.toString('utf8')) as T) : undefined;
  }

  /** Creates or replaces the record, retrying when another write of the same record got in between. */
  async put(name: string, value: T): Promise<void> {
    const bytes = Buffer.from(JSON.stringify(value));
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(this.resource, name);
      try {
        if (current) await this.store.update(this.resource, name, current.revision, () => bytes);
        else await this.store.create(this.resource, name, () => bytes);
        return;
      } catch (error) {
        const raced = error instanceof KeyExistsError || error instanceof RevisionConflictError;
        if (!raced || attempt >= 5) throw error;
      }
    }
  }

  /** Replaces the record only if it still exists (a late refresh must not bring back a record just removed). */
  async replace(name: string, value: T): Promise<boolean> {
    const bytes = Buffer.from(JSON.stringify(value));
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(this.resource, name);
      if (!current) return false;
      try {
        await this.store.update(this.resource, name, current.revision, () => bytes);
        return true;
      } catch (error) {
        if (!(error instanceof RevisionConflictError) || attempt >= 5) throw error;
      }
    }
  }

  /** Removes the record; true when there was one. */
  async delete(name: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(this.resource, name);
      if (!current) return false;
      try {
        await this.store.delete(this.resource, name, current.revision);
        return true;
      } catch (error) {
        if (!(error instanceof RevisionConflictError) || attempt >= 5) throw error;
      }
    }
  }

  /** Every record, in batches. */
  async *entries(): AsyncIterable<Array<[string, T]>> {
    for await (const batch of this.store.scan(this.resource)) {
      yield batch.map((record) => [record.name, JSON.parse(record.value.toString('utf8')) as T]);
    }
  }
}
