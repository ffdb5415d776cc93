import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../authz/principal.js';
import { CredentialFollower } from './credential-follower.js';

const STREAMS = {
  annSession: { username: 'ann', via: 'session', sessionId: 'key-1' },
  annOtherSession: { username: 'ann', via: 'session', sessionId: 'key-2' },
  annToken: { username: 'ann', via: 'token', tokenName: 'pat-1' },
  annBasic: { username: 'ann', via: 'basic' },
  bobSession: { username: 'bob', via: 'session', sessionId: 'key-3' },
  anonymous: { username: undefined, via: 'anonymous' },
} satisfies Record<string, Principal>;
type Stream = keyof typeof STREAMS;

/**
 * A follower over fakes: `state` is what they answer, `fire` sends a signal by hand. Every stream of STREAMS is
 * followed; `heard` records what each was told.
 */
function followAll() {
  const state = {
    active: new Set(['ann', 'bob']),
    validTokens: new Set(['pat-1']),
    tokenExpiry: undefined as number | undefined,
    sessionExpiry: (Date.now() + 60_000) as number | undefined,
    expiryLookups: 0,
    failLookup: false,
  };
  const listeners: Record<string, (...args: any[]) => void> = {};
  const on = (name: string) => (listener: (...args: any[]) => void) => void (listeners[name] = listener);
  const errors: unknown[] = [];
  const follower = new CredentialFollower({
    roles: { onChange: on('roles') },
    users: { isActive: (username) => state.active.has(username), onLostAccess: on('users') },
    sessions: {
      expiryOf: async () => {
        state.expiryLookups++;
        if (state.failLookup) throw new Error('store down');
        return state.sessionExpiry;
      },
      onEnded: on('sessions'),
    },
    tokens: {
      check: (name) => ({ valid: state.validTokens.has(name), expiresAtMs: state.tokenExpiry }),
      onChanged: on('tokens'),
    },
    passwords: { onChanged: on('passwords') },
    onError: (error) => errors.push(error),
  });
  const heard = new Map<Stream, string[]>();
  const stops = new Map<Stream, () => void>();
  const follow = (stream: Stream) => {
    heard.set(stream, []);
    const told = heard.get(stream)!;
    stops.set(
      stream,
      follower.follow(STREAMS[stream], {
        ended: (error) => told.push(`${error.status} ${error.message}`),
        changed: () => told.push('changed'),
      }),
    );
  };
  for (const stream of Object.keys(STREAMS) as Stream[]) follow(stream);
  const fire = (name: string, ...args: unknown[]) => listeners[name]!(...args);
  /** What each stream was told, for those told anything. */
  const told = () => Object.fromEntries([...heard].filter(([, what]) => what.length > 0));
  return { state, follower, fire, told, follow, stops, errors };
}

const SESSION_GONE = '401 the session has ended or expired; sign in again';
const TOKEN_GONE = '401 the access token has been revoked, deleted or has expired';
const ANN_GONE = '401 user "ann" is disabled or no longer exists';
const everyoneChanged = Object.fromEntries(Object.keys(STREAMS).map((s) => [s, ['changed']]));

describe('CredentialFollower', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it.each<[string, (s: ReturnType<typeof followAll>) => void, Record<string, string[]>]>([
    ['a session ends: only its streams', (s) => s.fire('sessions', 'key-1'), { annSession: [SESSION_GONE] }],
    [
      "a password changes: the user's HTTP Basic streams only",
      (s) => s.fire('passwords', 'ann'),
      { annBasic: ['401 the password has changed; authenticate again'] },
    ],
    ['roles change, every credential holds: every stream hears it', (s) => s.fire('roles'), everyoneChanged],
    [
      "a user loses access: all of theirs end, nobody else's is touched",
      (s) => {
        s.state.active.delete('ann');
        s.fire('users', 'ann');
      },
      { annSession: [ANN_GONE], annOtherSession: [ANN_GONE], annToken: [ANN_GONE], annBasic: [ANN_GONE] },
    ],
    [
      "a token is revoked: its streams end, the user's others hear access may have changed",
      (s) => {
        s.state.validTokens.delete('pat-1');
        s.fire('tokens', 'pat-1', 'ann');
      },
      { annSession: ['changed'], annOtherSession: ['changed'], annToken: [TOKEN_GONE], annBasic: ['changed'] },
    ],
    [
      'roles change after a token went: a lost credential wins (401), the others hear it',
      (s) => {
        s.state.validTokens.delete('pat-1');
        s.fire('roles');
      },
      { ...everyoneChanged, annToken: [TOKEN_GONE] },
    ],
  ])('%s', async (_name, act, expected) => {
    const s = followAll();
    await vi.advanceTimersByTimeAsync(0);
    act(s);
    expect(s.told()).toEqual(expected);
    expect(s.errors).toEqual([]);
  });

  it('tells an ended stream once, then lets it go', async () => {
    const s = followAll();
    s.fire('sessions', 'key-1');
    s.fire('sessions', 'key-1');
    s.fire('roles');
    expect(s.told().annSession).toEqual([SESSION_GONE]);
    expect(s.follower.size).toBe(Object.keys(STREAMS).length - 1);
  });

  it('ends at once a stream whose credential is already gone', () => {
    const s = followAll();
    s.state.validTokens.delete('pat-1');
    const told: number[] = [];
    s.follower.follow({ username: 'ann', via: 'token', tokenName: 'pat-1' }, { ended: (e) => told.push(e.status) });
    expect(told).toEqual([401]);
    // The other stream on that token went with it.
    expect(s.told().annToken).toEqual([TOKEN_GONE]);
  });

  it('looks a session up once however many streams share it, and stops once the last one goes', async () => {
    const s = followAll();
    s.follow('annSession');
    s.follow('annSession');
    await vi.advanceTimersByTimeAsync(0);
    // key-1 (three streams), key-2, key-3.
    expect(s.state.expiryLookups).toBe(3);
    // One timer per session, none for the rest.
    expect(vi.getTimerCount()).toBe(3);
    // The last stop of each stream: two of key-1's three streams stay, and so does its timer.
    for (const stop of s.stops.values()) stop();
    expect(s.follower.size).toBe(2);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('keeps a session while its expiry moves later, and ends it once it expires', async () => {
    const s = followAll();
    s.state.sessionExpiry = Date.now() + 2_000;
    s.fire('sessions', 'key-2');
    s.fire('sessions', 'key-3');
    s.follow('annOtherSession');
    await vi.advanceTimersByTimeAsync(1_000);
    s.state.sessionExpiry = Date.now() + 2_000;
    await vi.advanceTimersByTimeAsync(1_500);
    expect(s.told().annOtherSession).toBeUndefined();
    s.state.sessionExpiry = undefined;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.told().annOtherSession).toEqual([SESSION_GONE]);
  });

  it('ends a token stream at the token expiry', async () => {
    const s = followAll();
    s.stops.get('annToken')!();
    s.state.tokenExpiry = Date.now() + 5_000;
    s.follow('annToken');
    await vi.advanceTimersByTimeAsync(4_000);
    expect(s.told().annToken).toBeUndefined();
    s.state.validTokens.delete('pat-1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.told().annToken).toEqual([TOKEN_GONE]);
  });

  it('ends with a 500 a session that cannot be looked up, and reports why', async () => {
    const s = followAll();
    s.fire('sessions', 'key-1');
    s.state.failLookup = true;
    s.follow('annSession');
    await vi.advanceTimersByTimeAsync(0);
    expect(s.told().annSession).toEqual(['500 the session could not be checked; open the stream again']);
    expect(s.errors).toEqual([new Error('store down')]);
  });

  it('tells every stream even when one of them throws', () => {
    const s = followAll();
    s.follower.follow(STREAMS.annSession, {
      ended: () => undefined,
      changed: () => {
        throw new Error('broken subscriber');
      },
    });
    s.fire('roles');
    expect(s.told()).toEqual(everyoneChanged);
    expect(s.errors).toEqual([new Error('broken subscriber')]);
  });
});
