import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CredentialFollower } from '../authn/credential-follower.js';
import type { Principal } from '../authz/principal.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { WatchStatus } from './events.js';
import { WatchAccess, watchAttributes } from './watch-access.js';
import type { Watcher } from './watcher.js';

const served = {
  model: { group: 'notes.svc.run', version: 'v1', plural: 'notes' },
  owner: 'plugin:notes',
} as unknown as ServedModel;
const ann: Principal = { username: 'ann', via: 'session', sessionId: 'key-1' };

/** A watcher as WatchAccess sees it: it records the status it failed with. */
function fakeWatcher() {
  const ends: Array<() => void> = [];
  const watcher = {
    served,
    failedWith: undefined as WatchStatus | undefined,
    isEnded: false,
    onEnd: (listener: () => void) => void ends.push(listener),
    fail(status: WatchStatus) {
      if (watcher.isEnded) return;
      watcher.failedWith = status;
      watcher.isEnded = true;
      for (const listener of ends) listener();
    },
  };
  return watcher;
}

/**
 * WatchAccess following credentials through a real CredentialFollower over fakes: `state` is what the fakes answer,
 * `fire` sends the signals by hand.
 */
function accessWith() {
  const state = { allowed: true, active: true, sessionExpiry: undefined as number | undefined };
  const listeners: Record<string, (...args: any[]) => void> = {};
  const on = (name: string) => (listener: (...args: any[]) => void) => void (listeners[name] = listener);
  const credentials = new CredentialFollower({
    roles: { onChange: on('roles') },
    users: { isActive: () => state.active, onLostAccess: on('users') },
    sessions: { expiryOf: async () => state.sessionExpiry, onEnded: on('sessions') },
    tokens: { check: () => ({ valid: true, expiresAtMs: undefined }), onChanged: on('tokens') },
    passwords: { onChanged: on('credentials') },
    onError: (error) => {
      throw error;
    },
  });
  const access = new WatchAccess({
    roles: { authorize: () => ({ allowed: state.allowed, reason: 'no rule allowed it' }) },
    credentials,
  });
  const follow = (principal: Principal) => {
    const watcher = fakeWatcher();
    access.follow(watcher as unknown as Watcher, principal);
    return watcher;
  };
  return { state, credentials, follow, fire: (name: string, ...args: unknown[]) => listeners[name]!(...args) };
}

describe('WatchAccess', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('authorizes a watch as the gate does: watch on the collection, with the owning plugin', () => {
    expect(watchAttributes(served)).toEqual({
      isResourceRequest: true,
      verb: 'watch',
      path: '/apis/notes.svc.run/v1/notes',
      apiGroup: 'notes.svc.run',
      resource: 'notes',
      subresource: '',
      name: '',
      plugin: 'notes',
    });
    const core = { model: { group: '', version: 'v1alpha1', plural: 'roles' }, owner: 'core' } as ServedModel;
    expect(watchAttributes(core)).toMatchObject({ path: '/api/v1alpha1/roles', apiGroup: '', resource: 'roles' });
    expect(watchAttributes(core).plugin).toBeUndefined();
  });

  it('re-checks only the signalled session, and a lost credential wins over lost roles (401 before 403)', () => {
    const { state, follow, fire } = accessWith();
    state.sessionExpiry = Date.now() + 60_000;
    const mine = follow(ann);
    const other = follow({ username: 'ann', via: 'session', sessionId: 'key-2' });
    fire('sessions', 'key-1');
    expect(mine.failedWith).toMatchObject({ code: 401, reason: 'Unauthorized' });
    expect(other.isEnded).toBe(false);
    state.allowed = false;
    fire('roles');
    expect(other.failedWith).toMatchObject({ code: 403, reason: 'Forbidden' });
  });

  it('keeps a session watch while other use pushes the idle expiry later, and ends it once the session expires', async () => {
    const { state, credentials, follow } = accessWith();
    state.sessionExpiry = Date.now() + 2_000;
    const watcher = follow(ann);
    await vi.advanceTimersByTimeAsync(1_000);
    // Another request with the session: its expiry moves on.
    state.sessionExpiry = Date.now() + 2_000;
    await vi.advanceTimersByTimeAsync(1_500);
    expect(watcher.isEnded).toBe(false);
    state.sessionExpiry = undefined;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(watcher.failedWith).toMatchObject({ code: 401, reason: 'Unauthorized' });
    expect(credentials.size).toBe(0);
  });

  it('waits beyond the longest setTimeout delay for a far expiry', async () => {
    const { state, follow } = accessWith();
    const far = Date.now() + 30 * 24 * 3_600_000;
    state.sessionExpiry = far;
    const watcher = follow(ann);
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(watcher.isEnded).toBe(false);
    state.sessionExpiry = undefined;
    await vi.advanceTimersByTimeAsync(far - Date.now());
    expect(watcher.failedWith).toMatchObject({ code: 401 });
  });

  it('ends the HTTP Basic watches of a user whose password changed, not their session watches', () => {
    const { state, follow, fire } = accessWith();
    state.sessionExpiry = Date.now() + 60_000;
    const basic = follow({ username: 'ann', via: 'basic' });
    const session = follow(ann);
    fire('credentials', 'ann');
    expect(basic.failedWith).toMatchObject({ code: 401 });
    expect(session.isEnded).toBe(false);
  });
});
