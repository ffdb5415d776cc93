/**
 * Selection transitions (after k8s' cache watcher): a watcher with selectors sees an object only while it matches.
 * An update that brings an object into the selection is ADDED for that watcher, one that takes it out is DELETED, and
 * one outside the selection before and after is not seen at all. Pure.
 */
import type { ChangeType } from '../store/types.js';

/**
 * The event a watcher sees for a change, given whether the object matched its selection before the change
 * (`wasIn`, false for ADDED) and after it (`isIn`, false for DELETED); undefined when it sees nothing.
 */
export function transition(type: ChangeType, wasIn: boolean, isIn: boolean): ChangeType | undefined {
  if (type === 'ADDED') return isIn ? 'ADDED' : undefined;
  if (type === 'DELETED') return wasIn ? 'DELETED' : undefined;
  if (wasIn && isIn) return 'MODIFIED';
  if (isIn) return 'ADDED';
  if (wasIn) return 'DELETED';
  return undefined;
}
