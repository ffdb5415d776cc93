/**
 * Fencing of the leader's writes. Work that only the lease holder may do (reconciles, garbage collection, compaction,
 * removing a plugin's undeclared objects) runs inside `runFenced(lease, …)`; every store write it makes, however deep
 * in the call stack, then carries the lease's name and the epoch it has at the moment of the write, and a shared store
 * refuses it (FencedError) in the write's own transaction when the database holds a newer epoch. Carried by
 * AsyncLocalStorage rather than a parameter, so that the object service, admission and plugins' clients between a
 * reconciler and the store need not know about leases.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lease } from './types.js';

/** What a fenced write carries: the lease's name and the epoch its writer held. */
export interface Fence {
  lease: string;
  epoch: number;
}

const current = new AsyncLocalStorage<Pick<Lease, 'name' | 'epoch'>>();

/** Runs `work` as the holder of `lease`: its store writes are refused once the lease has moved on. */
export function runFenced<T>(lease: Pick<Lease, 'name' | 'epoch'>, work: () => T): T {
  return current.run(lease, work);
}

/** The fence of a write made now, or undefined outside `runFenced`. Read when the write is requested. */
export function currentFence(): Fence | undefined {
  const lease = current.getStore();
  return lease && { lease: lease.name, epoch: lease.epoch };
}
