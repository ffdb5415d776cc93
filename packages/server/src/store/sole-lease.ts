import type { Lease } from './types.js';

/**
 * The lease of a store that only this process opens (the embedded SQLite store, which refuses a second server): held
 * from the start and never lost, so duties that must run once simply run here.
 */
export function soleLease(): Lease {
  return { held: true, epoch: 1, onChange: () => () => undefined, release: async () => undefined };
}

/**
 * The lease of a server started with controllers off (SVC_CONTROLLERS=off): never held, and never asked for, so
 * other replicas lead and this one only serves the API.
 */
export function neverLease(): Lease {
  return { held: false, epoch: 0, onChange: () => () => undefined, release: async () => undefined };
}
