import { describe, expect, it } from 'vitest';
import { LoginLimiter } from './login-limiter.js';

/** A limiter with the default limits on a clock the test moves; `slept` lists the delays it asked for. */
function limiter() {
  let now = 1_000_000;
  const slept: number[] = [];
  const instance = new LoginLimiter({}, { now: () => now, sleep: async (ms) => void slept.push(ms) });
  return { instance, slept, advance: (ms: number) => (now += ms) };
}

/** The Retry-After of the 429 `fn` throws, or undefined when it lets the attempt through. */
const retryAfter = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ status: 429 });
    return (error as { headers: Record<string, string> }).headers['retry-after'];
  }
};

/** A whole failed password check, as the sign-in route makes it. */
function fail(instance: LoginLimiter, client: string, username: string): void {
  instance.check(client, username);
  instance.recordFailure(client, username);
}

describe('login limiter', () => {
  it('refuses a client its sixth attempt for a username after five failures, until the oldest leaves the window', () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 5; i++) {
      fail(instance, '10.0.0.1', 'alice');
      advance(1000);
    }
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBe('295');
    advance(295_000);
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBeUndefined();
  });

  it('lets another client sign in as a username a stranger failed for, and lets the stranger try other usernames', () => {
    const { instance } = limiter();
    for (let i = 0; i < 5; i++) fail(instance, '10.0.0.1', 'alice');
    expect(retryAfter(() => instance.check('10.0.0.2', 'alice'))).toBeUndefined();
    instance.recordSuccess('10.0.0.2', 'alice');
    expect(retryAfter(() => instance.check('10.0.0.1', 'bob'))).toBeUndefined();
  });

  it('refuses a client after twenty failures whatever the usernames', () => {
    const { instance } = limiter();
    for (let i = 0; i < 20; i++) fail(instance, '10.0.0.1', `user${i}`);
    expect(retryAfter(() => instance.check('10.0.0.1', 'carol'))).toBe('300');
    expect(retryAfter(() => instance.check('10.0.0.9', 'carol'))).toBeUndefined();
  });

  it('never refuses a username attacked from many clients, but slows its checks: 0.5 s doubling to 4 s', async () => {
    const { instance, slept } = limiter();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const client = `10.0.${i}.1`;
      expect(retryAfter(() => instance.check(client, 'alice'))).toBeUndefined();
      delays.push(instance.delayFor('alice'));
      await instance.slowDown('alice');
      instance.recordFailure(client, 'alice');
    }
    expect(delays).toEqual([0, 0, 0, 0, 0, 500, 1000, 2000, 4000, 4000]);
    expect(slept).toEqual([500, 1000, 2000, 4000, 4000]);
    // The owner, from a client of their own, gets in after the longest delay.
    instance.check('192.168.1.7', 'alice');
    expect(instance.delayFor('alice')).toBe(4000);
    instance.recordSuccess('192.168.1.7', 'alice');
  });

  it('counts attempts when they start, so parallel guesses cannot pass a limit while the hash runs', () => {
    const { instance } = limiter();
    for (let i = 0; i < 5; i++) instance.check('10.0.0.1', 'alice');
    // Five checks under way and none has failed yet: the sixth waits for them.
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBe('1');
    for (let i = 0; i < 5; i++) instance.recordFailure('10.0.0.1', 'alice');
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBe('300');
  });

  it('forgets an attempt that never reported its outcome after a minute', () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 5; i++) instance.check('10.0.0.1', 'alice');
    advance(60_000);
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBeUndefined();
  });

  it("forgets a client's failures for a username once it signs in as that username, and nothing else", () => {
    const { instance } = limiter();
    for (let i = 0; i < 4; i++) fail(instance, '10.0.0.1', 'alice');
    instance.check('10.0.0.1', 'alice');
    instance.recordSuccess('10.0.0.1', 'alice');
    for (let i = 0; i < 4; i++) fail(instance, '10.0.0.1', 'alice');
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBeUndefined();
    instance.recordSuccess('10.0.0.1', 'alice');
    // Eight failures for alice stay against her username (the next attempt from anywhere is its ninth: 4 s) and against
    // the client (its limit of 20): signing in to one's own account between guesses does not reset a spray.
    instance.check('10.0.0.2', 'alice');
    expect(instance.delayFor('alice')).toBe(4000);
    instance.recordSuccess('10.0.0.2', 'alice');
    for (let i = 0; i < 11; i++) fail(instance, '10.0.0.1', `user${i}`);
    instance.check('10.0.0.1', 'mallory');
    instance.recordSuccess('10.0.0.1', 'mallory');
    fail(instance, '10.0.0.1', 'user11');
    expect(retryAfter(() => instance.check('10.0.0.1', 'bob'))).toBe('300');
  });

  it('lets the slow-down lapse with the window', () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 8; i++) fail(instance, `10.0.${i}.1`, 'alice');
    expect(instance.delayFor('alice')).toBe(2000);
    advance(300_000);
    expect(instance.delayFor('alice')).toBe(0);
  });
});
