import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withReadCache } from './cached-store.js';
import { openSqliteStore } from './sqlite.js';
import { describeStoreConformance } from './store.suite.js';
import type { Store } from './types.js';

// The cache must be invisible: the whole store conformance suite runs through it.
let dir = '';
describeStoreConformance(
  'SQLite behind the read cache',
  async () => {
    dir ||= mkdtempSync(path.join(tmpdir(), 'svc-cached-'));
    return withReadCache(openSqliteStore({ path: path.join(dir, 'svc.db') }), 64 * 1024);
  },
  async () => {
    rmSync(dir, { recursive: true, force: true });
    dir = '';
  },
);

describe('read cache', () => {
  const encode = (text: string) => (revision: number) => Buffer.from(JSON.stringify({ text, revision }));
  const counting = (inner: Store) => {
    const calls = { get: 0, getMany: 0 };
    const spy: Store = {
      ...inner,
      get: (r, n) => {
        calls.get++;
        return inner.get(r, n);
      },
      getMany: (r, n) => {
        calls.getMany++;
        return inner.getMany(r, n);
      },
    };
    return { spy, calls };
  };

  it('serves recent writes without asking the store, and forgets deleted objects', async () => {
    const { spy, calls } = counting(openSqliteStore({ path: ':memory:' }));
    const store = withReadCache(spy);
    const a = await store.create('things', 'a', encode('a1'));
    const b = await store.update('things', 'a', a.revision, encode('a2'));
    expect((await store.get('things', 'a'))?.value.toString()).toContain('a2');
    expect((await store.getMany('things', ['a', 'missing'])).map((r) => r.name)).toEqual(['a']);
    expect(calls.get).toBe(0);
    expect(await store.currentRevision()).toBe(b.revision);
    const removed = await store.delete('things', 'a', b.revision);
    expect(await store.get('things', 'a')).toBeUndefined();
    expect(await store.currentRevision()).toBe(removed.revision);
  });

  it('does not cache a write the store refused', async () => {
    const store = withReadCache(openSqliteStore({ path: ':memory:' }));
    const a = await store.create('things', 'a', encode('a1'));
    await expect(store.update('things', 'a', a.revision + 5, encode('bad'))).rejects.toThrow();
    expect((await store.get('things', 'a'))?.value.toString()).toContain('a1');
  });

  it('keeps each cached value in an allocation of its own, not a view pinning a shared pool slab', async () => {
    const store = withReadCache(openSqliteStore({ path: ':memory:' }));
    // Buffer.from of a short string is a view into Node's shared 8 KiB pool.
    expect(encode('x')(1).buffer.byteLength).toBeGreaterThan(encode('x')(1).length);
    await store.create('things', 'a', encode('a1'));
    await store.create('things', 'b', encode('b1'));
    for (const name of ['a', 'b']) {
      const value = (await store.get('things', name))!.value;
      expect(value.buffer.byteLength).toBe(value.length);
      expect(value.toString()).toContain(`${name}1`);
    }
  });
});
