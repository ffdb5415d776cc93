/**
 * At most `max` of something held at once per key (a user's open streams). Hand-written: a counter per key with an
 * idempotent release is all it takes, and no rate limiter in the dependencies counts concurrent holders.
 */
export class PerKeyLimit {
  private readonly held = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes one for `key`: the function that gives it back (once, however often called), or undefined at the limit. */
  take(key: string): (() => void) | undefined {
    const count = this.held.get(key) ?? 0;
    if (count >= this.max) return undefined;
    this.held.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** How many `key` holds now. */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }
}

/** Whose streams a request's count against: a signed-in user's, all together, or an anonymous client address's. */
export function streamOwner(username: string | undefined, address: string): string {
  return username === undefined ? `anonymous client ${address}` : `user "${username}"`;
}

/** Why a stream is refused at the limit: what counts, the limit, and the setting that raises it. */
export function tooManyStreamsMessage(owner: string, max: number): string {
  return (
    `too many open watches: ${owner} has ${max} open (watches and console event streams count together; the ` +
    `limit is SVC_MAX_WATCHES_PER_USER=${max}); close one first`
  );
}
