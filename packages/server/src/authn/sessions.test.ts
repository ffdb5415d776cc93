import { SESSIONS_RECORDS } from '@svc/plugin-api';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/types.js';
import { Sessions } from './sessions.js';

const policy = { sessionIdleTimeoutMs: 30 * 60_000, sessionMaxAgeMs: 12 * 3_600_000 };
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function setup() {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { advance: (ms: number) => (now += ms) };
  return { store, clock, sessions: (s = store) => new Sessions(s, policy, undefined, () => now) };
}

/** Every session record in the store, as [digest, value]. */
async function records(store: Store): Promise<Array<[string, Buffer]>> {
  const all: Array<[string, Buffer]> = [];
  for await (const batch of store.secrets.scan(SESSIONS_RECORDS)) all.push(...batch);
  return all;
}

describe('sessions', () => {
  it('stores only digests: neither the session id nor the CSRF token is in the store', async () => {
    const { store, sessions } = setup();
    const { id, xsrfToken } = await sessions().create('alice');
    const stored = await records(store);
    expect(stored).toHaveLength(1);
    const bytes = stored[0]![1].toString() + stored[0]![0];
    expect(bytes).not.toContain(id);
    expect(bytes).not.toContain(xsrfToken);
  });

  it('finds a session from the store after a restart (a new Sessions over the same store)', async () => {
    const { sessions } = setup();
    const { id, xsrfToken } = await sessions().create('alice');
    const fresh = sessions();
    const found = await fresh.find(id);
    expect(found?.username).toBe('alice');
    expect(fresh.checkXsrf(found!, xsrfToken)).toBe(true);
    expect(fresh.checkXsrf(found!, 'wrong')).toBe(false);
    expect(fresh.checkXsrf(found!, undefined)).toBe(false);
  });

  it('ends a session idle for too long, and any session past its maximum age', async () => {
    const { clock, sessions } = setup();
    const s = sessions();
    const idle = await s.create('alice');
    clock.advance(31 * 60_000);
    expect(await s.find(idle.id)).toBeUndefined();

    const busy = await s.create('alice');
    for (let i = 0; i < 24; i++) {
      clock.advance(29 * 60_000);
      expect(await s.find(busy.id)).toBeDefined();
    }
    // 24 × 29 min = 11.6 h; one more step passes 12 h.
    clock.advance(29 * 60_000);
    expect(await s.find(busy.id)).toBeUndefined();
  });

  it('writes use through to the store at most once a minute, so idle expiry survives a restart', async () => {
    const { clock, sessions, store } = setup();
    const s = sessions();
    const { id } = await s.create('alice');
    clock.advance(20 * 60_000);
    const stored = await records(store);
    await s.find(id);
    // The use is written off the request's path: wait until the stored record changes.
    await expect.poll(() => records(store)).not.toEqual(stored);
    clock.advance(20 * 60_000);
    // 40 minutes after login, 20 after last use: still alive for a fresh reader.
    expect(await sessions().find(id)).toBeDefined();
  });

  it('ends all sessions of a user but the one kept', async () => {
    const { sessions } = setup();
    const s = sessions();
    const a = await s.create('alice');
    const b = await s.create('alice');
    const c = await s.create('bob');
    const kept = (await s.find(a.id))!.key;
    expect(await s.endSessionsOf('alice', kept)).toBe(1);
    expect(await s.find(a.id)).toBeDefined();
    expect(await s.find(b.id)).toBeUndefined();
    expect(await s.find(c.id)).toBeDefined();
    expect(await sessions().find(b.id)).toBeUndefined();
  });

  it('sweeps expired sessions out of the store', async () => {
    const { clock, sessions } = setup();
    const s = sessions();
    await s.create('alice');
    await s.create('bob');
    clock.advance(60 * 60_000);
    expect(await s.sweep()).toBe(2);
  });
});
