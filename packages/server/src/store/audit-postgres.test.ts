/**
 * The shared audit table against a real PostgreSQL: replicas that open it at the same moment on an empty schema all
 * get it (found by the replica tests: one of three exited with "relation audit_events already exists"), and events
 * that several replicas append read back merged, newest first, page by page.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresAuditStore } from './audit-postgres.js';
import type { AuditRecord, AuditStore } from './audit-store.js';
import { closeAndDrop, freshSchema, PG_TEST_URL } from './postgres-fixtures.suite.js';

const connectionString = PG_TEST_URL;
const schema = freshSchema('svc_audit');
const stores: AuditStore[] = [];

afterAll(() => closeAndDrop(schema, stores));

const record = (time: string, username: string, name: string): AuditRecord => ({
  time,
  username,
  verb: 'create',
  resource: 'persons',
  name,
  event: JSON.stringify({ name }),
});

describe('PostgreSQL audit store', () => {
  it('opens on six replicas at once on an empty schema, and reads their events merged', async () => {
    const opened = await Promise.allSettled(
      Array.from({ length: 6 }, () => openPostgresAuditStore({ connectionString, schema })),
    );
    for (const result of opened) if (result.status === 'fulfilled') stores.push(result.value);
    expect(opened.map((result) => result.status)).toEqual(Array(6).fill('fulfilled'));

    const [a, b] = stores as [AuditStore, AuditStore];
    await a.append([
      record('2026-11-27T10:00:00.000Z', 'ada', 'one'),
      record('2026-11-27T10:00:02.000Z', 'ada', 'three'),
    ]);
    await b.append([record('2026-11-27T10:00:01.000Z', 'bob', 'two')]);

    const first = await b.query({ limit: 2 });
    expect(first.events.map((event) => JSON.parse(event).name)).toEqual(['three', 'two']);
    const second = await a.query({ limit: 2, after: first.next });
    expect(second.events.map((event) => JSON.parse(event).name)).toEqual(['one']);
    expect(second.next).toBeUndefined();
    expect((await a.query({ limit: 10, username: 'bob' })).events.map((e) => JSON.parse(e).name)).toEqual(['two']);

    expect(await a.deleteBefore('2026-11-27T10:00:01.500Z')).toBe(2);
    expect((await b.query({ limit: 10 })).events.map((event) => JSON.parse(event).name)).toEqual(['three']);
  });
});
