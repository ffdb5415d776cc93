import type { Lease } from './types.js';

/**
 * The lease of a store that only this process opens (the embedded SQLite store, which refuses a second server): held
 * from the start and never lost, so duties that must run once simply run here.
 */
export function soleLease(): Lease {
  return { held: true, epoch: 1, onChange: () => () => undefined, release: async () => undefined };
}
