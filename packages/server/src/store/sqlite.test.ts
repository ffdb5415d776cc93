import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite.js';
import { encodeAs } from './store-fixtures.suite.js';
import { describeStoreConformance } from './store.suite.js';

// A file rather than ':memory:', so the suite can close and reopen the same database.
const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-store-'));
const path = join(dir, 'store.db');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance(
  'sqlite',
  async () => openSqliteStore({ path }),
  async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  },
);

describe('openSqliteStore', () => {
  it('keeps each :memory: store private', async () => {
    const first = openSqliteStore({ path: ':memory:' });
    const second = openSqliteStore({ path: ':memory:' });
    const created = await first.create('widgets', 'a', encodeAs('a'));
    expect(await first.get('widgets', 'a')).toEqual(created);
    expect(await second.get('widgets', 'a')).toBeUndefined();
    expect(first.dialect).toBe('sqlite');
    await Promise.all([first.close(), second.close()]);
  });

  it('puts a file database in WAL mode', async () => {
    const walPath = join(dir, 'wal.db');
    const store = openSqliteStore({ path: walPath });
    await store.close();
    const raw = new Database(walPath, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('reports a failed call as a rejected promise', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    await store.close();
    await expect(store.get('widgets', 'a')).rejects.toThrow();
    await expect(store.compact(-1)).rejects.toBeInstanceOf(RangeError);
  });
});
