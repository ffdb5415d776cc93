import { CREDENTIALS_RECORDS } from '@svc/plugin-api';
import type { Store } from '../store/types.js';
import { InternalRecords } from './internal-records.js';
import { PasswordHasher } from './passwords.js';

interface CredentialRecord {
  /** `scrypt$…` (see passwords.ts). */
  passwordHash: string;
  /** Epoch milliseconds of the last password change. */
  changedAt: number;
}

/**
 * Users' password hashes, kept out of the User objects (so no API can return them) in the store's secret records,
 * keyed by username.
 */
export class Credentials {
  private readonly records: InternalRecords<CredentialRecord>;
  /** A hash of a password nobody knows, verified when the user does not exist, so that case takes as long. */
  private decoy: Promise<string> | undefined;
  private readonly listeners = new Set<(username: string) => void>();

  constructor(
    store: Store,
    readonly hasher: PasswordHasher = new PasswordHasher(),
    private readonly now: () => number = Date.now,
  ) {
    this.records = new InternalRecords(store.secrets, CREDENTIALS_RECORDS);
  }

  async setPassword(username: string, password: string): Promise<void> {
    const passwordHash = await this.hasher.hash(password);
    await this.records.put(username, { passwordHash, changedAt: this.now() });
    this.announce(username);
  }

  /**
   * True only when the user has a password and it is this one. An unknown user costs the same hash as a known one,
   * so response times do not tell which usernames exist. Callers that check a password someone sent do it through the
   * sign-in throttle (LoginLimiter.attempt).
   */
  async verify(username: string, password: string): Promise<boolean> {
    const record = await this.records.get(username);
    if (!record) {
      this.decoy ??= this.hasher.hash(`decoy-${Math.random()}`);
      await this.hasher.verify(password, await this.decoy);
      return false;
    }
    return this.hasher.verify(password, record.passwordHash);
  }

  async hasPassword(username: string): Promise<boolean> {
    return (await this.records.get(username)) !== undefined;
  }

  async remove(username: string): Promise<void> {
    if (await this.records.delete(username)) this.announce(username);
  }

  /** Called after a user's password changed or was removed (caches of verified credentials listen). */
  onChanged(listener: (username: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Another server changed or removed this user's password (a shared store). */
  changedElsewhere(username: string): void {
    this.announce(username);
  }

  private announce(username: string): void {
    for (const listener of this.listeners) listener(username);
  }
}
