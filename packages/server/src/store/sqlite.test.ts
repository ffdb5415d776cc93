import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite.js';
import { describeStoreConformance } from './store.suite.js';
import { decoded, encodeAs } from './store-fixtures.suite.js';
import { KeyExistsError } from './types.js';

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
  it('commits with the synchronous level asked for, as the database reports it', async () => {
    const normal = openSqliteStore({ path: join(dir, 'normal.db') });
    const full = openSqliteStore({ path: join(dir, 'full.db'), synchronous: 'full' });
    expect([normal.durability, full.durability]).toEqual(['synchronous=normal', 'synchronous=full']);
    await Promise.all([normal.close(), full.close()]);
  });

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

  it('compacts a long history in slices, letting the event loop turn between them', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    const writes = [];
    for (let i = 0; i < 2500; i++) writes.push(store.create('widgets', `w${i}`, encodeAs(String(i))));
    await Promise.all(writes);
    // Work queued for the loop's next turn runs before the compaction ends only if the compaction yields a turn (a
    // timer would be timing-dependent: a fast compaction can end within its first millisecond).
    let turned = false;
    const compacting = store.compact(100);
    setImmediate(() => {
      turned = true;
    });
    const dropped = await compacting;
    expect(dropped).toBe(2400);
    expect(turned).toBe(true);
    expect(await store.oldestResumableRevision()).toBe(2400);
    const kept = await store.changesSince(2400);
    expect(kept.map((change) => change.revision)).toEqual(Array.from({ length: 100 }, (_, i) => 2401 + i));
    expect(await store.compact(100)).toBe(0);
    await store.close();
  });

  it('stops a compaction between slices when the store closes, without an error', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    const writes = [];
    for (let i = 0; i < 2500; i++) writes.push(store.create('widgets', `w${i}`, encodeAs(String(i))));
    await Promise.all(writes);
    const compacting = store.compact(0);
    await store.close();
    expect(await compacting).toBe(1000);
  });

  it('reports a failed call as a rejected promise', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    await store.close();
    await expect(store.get('widgets', 'a')).rejects.toThrow();
    await expect(store.compact(-1)).rejects.toBeInstanceOf(RangeError);
  });

  it('rolls a whole batch back when a write fails after its first row, and keeps batches after it', async () => {
    const batchPath = join(dir, 'batch.db');
    const store = openSqliteStore({ path: batchPath });
    // A trigger makes the history refuse one name: that create fails after its object row was written.
    const raw = new Database(batchPath);
    raw.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON events WHEN NEW.name = 'poison'
              BEGIN SELECT RAISE(ABORT, 'the history refused poison'); END`);
    raw.close();
    const batch = await Promise.allSettled([
      store.create('widgets', 'a', encodeAs('a')),
      store.create('widgets', 'poison', encodeAs('p')),
      store.create('widgets', 'b', encodeAs('b')),
    ]);
    expect(batch.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of batch) expect((outcome as PromiseRejectedResult).reason.message).toMatch(/refused poison/);
    expect(await store.count('widgets')).toBe(0);
    expect(await store.changesSince(0)).toEqual([]);
    // Nothing of the failed batch is left, and the revision it would have used is used by the next one.
    const next = await store.create('widgets', 'c', encodeAs('c'));
    expect(next.revision).toBe(1);
    expect((await store.changesSince(0)).map((change) => change.name)).toEqual(['c']);
    await store.close();
  });

  it('refuses a duplicate name in a batch without disturbing the other writes of it', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    await store.create('widgets', 'taken', encodeAs('t'));
    const batch = await Promise.allSettled([
      store.create('widgets', 'a', encodeAs('a')),
      store.create('widgets', 'taken', encodeAs('again')),
      store.create('widgets', 'a', encodeAs('a twice')),
      store.create('widgets', 'b', encodeAs('b')),
    ]);
    expect(batch.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((batch[1] as PromiseRejectedResult).reason).toBeInstanceOf(KeyExistsError);
    expect((batch[2] as PromiseRejectedResult).reason).toBeInstanceOf(KeyExistsError);
    // No gap: the refused writes used no revision.
    expect((await store.changesSince(0)).map((change) => [change.name, change.revision])).toEqual([
      ['taken', 1],
      ['a', 2],
      ['b', 3],
    ]);
    expect(decoded((await store.get('widgets', 'taken'))!).text).toBe('t');
    await store.close();
  });

  it('moves secrets out of a database made before the secrets table, even those only events remember, leaving no bytes', async () => {
    const oldPath = join(dir, 'old.db');
    const store = openSqliteStore({ path: oldPath });
    const marker = 'scrypt$only-in-the-history';
    const session = await store.create('security.svc.run/sessions', 'ended', () => Buffer.from(marker));
    await store.delete('security.svc.run/sessions', 'ended', session.revision);
    await store.create('widgets', 'a', encodeAs('a'));
    await store.close();
    // What an earlier version left: no secrets table.
    const raw = new Database(oldPath);
    raw.exec('DROP TABLE secrets');
    raw.close();

    const reopened = openSqliteStore({ path: oldPath });
    expect((await reopened.changesSince(0)).map((change) => change.name)).toEqual(['a']);
    await reopened.close();
    for (const file of [oldPath, `${oldPath}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(marker)).toBe(false);
    }
  });
});
