/** Shared by the conformance suite's files: sample resources, an encoder that shows its revision, a state snapshot. */
import type { Encoder, Store } from './types.js';

export const WIDGETS = 'example.com/widgets';
export const GADGETS = 'gadgets';

/** What a part of the suite needs: the test's store, and a way to open another one on the same storage. */
export interface SuiteContext {
  store(): Store;
  openStore(): Promise<Store>;
}

/** An encoder whose bytes carry the revision they were built for, as the object codec does. */
export function encodeAs(text: string): Encoder {
  return (revision) => Buffer.from(JSON.stringify({ text, revision }));
}

export function decoded(record: { value: Buffer }): { text: string; revision: number } {
  return JSON.parse(record.value.toString('utf8')) as { text: string; revision: number };
}

/** The store's whole visible state around one name, to show that a failed write changed nothing. */
export async function snapshot(store: Store, resource: string, name: string) {
  return {
    revision: await store.currentRevision(),
    record: await store.get(resource, name),
    count: await store.count(resource),
    changes: await store.changesSince(await store.oldestResumableRevision()),
  };
}
