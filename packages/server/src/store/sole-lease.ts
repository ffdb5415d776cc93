import type { Lease } from './types.js';

/**
 * A lease that never changes hands. Held (`true`): the lease of a store only this process opens (the embedded SQLite
 * store, which refuses a second server), so duties that must run once simply run here. Not held (`false`): the lease
 * of a server started with controllers off (SVC_CONTROLLERS=off), never asked for, so other replicas lead and this
 * one only serves the API.
 */
export function fixedLease(held: boolean, name = 'controllers'): Lease {
  return { name, held, epoch: held ? 1 : 0, onChange: () => () => undefined, release: async () => undefined };
}
