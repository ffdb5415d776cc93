import { describe, expect, it } from 'vitest';
import { clientKeyOf } from './client-key.js';
import { LoginLimiter } from './login-limiter.js';

/**
 * A limiter with the default limits on a clock the test moves: a sleep waits until the test wakes it (`wakeNext`
 * moves the clock to the earliest sleeper's time). `slept` lists the delays asked for; `mostAsleep` how many sleeps
 * were ever outstanding at once.
 */
function limiter() {
  let now = 1_000_000;
  const slept: number[] = [];
  const sleeping: Array<{ at: number; wake: () => void }> = [];
  let mostAsleep = 0;
  const sleep = (ms: number) =>
    new Promise<void>((wake) => {
      slept.push(ms);
      sleeping.push({ at: now + ms, wake });
      mostAsleep = Math.max(mostAsleep, sleeping.length);
    });
  const instance = new LoginLimiter({}, { now: () => now, sleep });
  return {
    instance,
    slept,
    now: () => now,
    mostAsleep: () => mostAsleep,
    asleep: () => sleeping.length,
    advance: (ms: number) => (now += ms),
    /** Wakes the earliest sleeper at its time, then lets what it started run up to its next wait. */
    async wakeNext() {
      sleeping.sort((a, b) => a.at - b.at);
      const next = sleeping.shift();
      if (!next) throw new Error('nobody is asleep');
      now = Math.max(now, next.at);
      next.wake();
      await settle();
    },
  };
}

/** Lets every promise chain run until all that is left waits for the clock. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const wrong = async () => false;
const right = async () => true;

/**
 * The Retry-After of the 429 an attempt is refused with (at once, before anything runs), or undefined when it is let
 * through: it then runs in the background with `check`.
 */
function refusal(instance: LoginLimiter, client: string, username: string, check = wrong): string | undefined {
  try {
    void instance.attempt(client, username, check).catch(() => undefined);
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ status: 429 });
    return (error as { headers: Record<string, string> }).headers['retry-after'];
  }
}

describe('login limiter', () => {
  it('refuses a client its sixth attempt for a username after five failures, until the oldest leaves the window', async () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 5; i++) {
      expect(await instance.attempt('10.0.0.1', 'alice', wrong)).toBe(false);
      advance(1000);
    }
    expect(refusal(instance, '10.0.0.1', 'alice')).toBe('295');
    advance(295_000);
    expect(refusal(instance, '10.0.0.1', 'alice')).toBeUndefined();
  });

  it('lets another client sign in as a username a stranger failed for, and lets the stranger try other usernames', async () => {
    const { instance, wakeNext } = limiter();
    for (let i = 0; i < 5; i++) await instance.attempt('10.0.0.1', 'alice', wrong);
    const owner = instance.attempt('10.0.0.2', 'alice', right);
    await settle();
    await wakeNext();
    expect(await owner).toBe(true);
    expect(refusal(instance, '10.0.0.1', 'bob')).toBeUndefined();
  });

  it('refuses a client after twenty failures whatever the usernames', async () => {
    const { instance } = limiter();
    for (let i = 0; i < 20; i++) await instance.attempt('10.0.0.1', `user${i}`, wrong);
    expect(refusal(instance, '10.0.0.1', 'carol')).toBe('300');
    expect(refusal(instance, '10.0.0.9', 'carol')).toBeUndefined();
  });

  it('never refuses a username attacked from many clients, but slows its checks: 0.5 s doubling to 4 s', async () => {
    const { instance, slept, wakeNext, asleep } = limiter();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      delays.push(instance.delayFor('alice'));
      const guess = instance.attempt(`10.0.${i}.1`, 'alice', wrong);
      await settle();
      if (asleep() > 0) await wakeNext();
      expect(await guess).toBe(false);
    }
    expect(delays).toEqual([0, 0, 0, 0, 0, 500, 1000, 2000, 4000, 4000]);
    expect(slept).toEqual([500, 1000, 2000, 4000, 4000]);
    // The owner, from a client of their own, gets in after the longest delay.
    expect(instance.delayFor('alice')).toBe(4000);
    const owner = instance.attempt('192.168.1.7', 'alice', right);
    await settle();
    await wakeNext();
    expect(await owner).toBe(true);
  });

  it('checks parallel guesses for one username one at a time, each after its delay, however many clients send them', async () => {
    const { instance, slept, now, mostAsleep, wakeNext } = limiter();
    const start = now();
    let checked = 0;
    const check = async () => {
      checked++;
      return false;
    };
    // Twenty clients, two guesses each, all at once.
    const guesses = Array.from({ length: 40 }, (_, i) => instance.attempt(`10.0.${i % 20}.1`, 'alice', check));
    await settle();
    // Five checks without delay, then one check per wake-up, each having waited alone.
    expect(checked).toBe(5);
    for (let turn = 1; turn <= 35; turn++) {
      await wakeNext();
      expect(checked).toBe(5 + turn);
    }
    expect(await Promise.all(guesses)).toEqual(Array(40).fill(false));
    expect(mostAsleep()).toBe(1);
    expect(slept).toEqual([500, 1000, 2000, ...Array(32).fill(4000)]);
    // The guesses took the sum of their delays: 3.5 s, then 4 s each.
    expect(now() - start).toBe(3500 + 32 * 4000);
  });

  it("lets the owner, from a client with no failures, take the next turn ahead of strangers' queued guesses", async () => {
    const { instance, now, wakeNext } = limiter();
    // Strangers from ten clients: one guess each first, then four more each queued.
    for (let i = 0; i < 10; i++) void instance.attempt(`10.0.${i}.1`, 'alice', wrong);
    await settle();
    for (let round = 0; round < 5; round++) await wakeNext();
    const queued = Array.from({ length: 40 }, (_, i) => instance.attempt(`10.0.${i % 10}.1`, 'alice', wrong));
    await settle();
    expect(instance.waitingFor('alice')).toBe(40);
    const asked = now();
    let signedIn = false;
    const owner = instance.attempt('192.168.1.7', 'alice', right).then((ok) => (signedIn = ok));
    await settle();
    expect(instance.waitingFor('alice')).toBe(41);
    await wakeNext();
    expect(signedIn).toBe(true);
    expect(now() - asked).toBeLessThanOrEqual(4000);
    await owner;
    // The strangers' guesses still wait, one turn each.
    expect(instance.waitingFor('alice')).toBe(40);
    for (let i = 0; i < 40; i++) await wakeNext();
    expect(await Promise.all(queued)).toEqual(Array(40).fill(false));
  });

  it('counts attempts when they start, so parallel guesses cannot pass a limit while the hash runs', async () => {
    const { instance } = limiter();
    const releases: Array<() => void> = [];
    const slowWrong = () => new Promise<boolean>((resolve) => releases.push(() => resolve(false)));
    const guesses = Array.from({ length: 5 }, () => instance.attempt('10.0.0.1', 'alice', slowWrong));
    await settle();
    // Five attempts under way and none has failed yet: the sixth waits for them.
    expect(refusal(instance, '10.0.0.1', 'alice')).toBe('1');
    // They run one at a time: release each as its turn comes.
    for (let i = 0; i < 5; i++) {
      releases.shift()!();
      await settle();
    }
    expect(await Promise.all(guesses)).toEqual(Array(5).fill(false));
    expect(refusal(instance, '10.0.0.1', 'alice')).toBe('300');
  });

  it('stops counting an attempt whose check failed, and the next check of the username still runs', async () => {
    const { instance } = limiter();
    const broken = async (): Promise<boolean> => {
      throw new Error('the store is down');
    };
    for (let i = 0; i < 5; i++) {
      await expect(instance.attempt('10.0.0.1', 'alice', broken)).rejects.toThrow('the store is down');
    }
    expect(instance.delayFor('alice')).toBe(0);
    expect(await instance.attempt('10.0.0.1', 'alice', right)).toBe(true);
  });

  it("forgets a client's failures for a username once it signs in as that username, and nothing else", async () => {
    const { instance, wakeNext } = limiter();
    /** One attempt, waking its delay if it has one. */
    const attempt = async (client: string, username: string, check: () => Promise<boolean>) => {
      const result = instance.attempt(client, username, check);
      await settle();
      if (instance.delayFor(username) > 0 && instance.waitingFor(username) > 0) await wakeNext();
      return result;
    };
    for (let i = 0; i < 4; i++) await attempt('10.0.0.1', 'alice', wrong);
    await attempt('10.0.0.1', 'alice', right);
    for (let i = 0; i < 4; i++) await attempt('10.0.0.1', 'alice', wrong);
    // Its own failures for alice were forgotten at the sign-in: four since, under the limit of five.
    expect(refusal(instance, '10.0.0.1', 'alice', right)).toBeUndefined();
    // Eight failures for alice stay against her username (that attempt is its ninth: 4 s) and against the client (its
    // limit of 20): signing in to one's own account between guesses does not reset a spray.
    expect(instance.delayFor('alice')).toBe(4000);
    await settle();
    await wakeNext();
    for (let i = 0; i < 11; i++) await attempt('10.0.0.1', `user${i}`, wrong);
    await attempt('10.0.0.1', 'mallory', right);
    await attempt('10.0.0.1', 'user11', wrong);
    // Twenty failures; the oldest leaves the window 300 s after it, 7.5 s of delays ago.
    expect(refusal(instance, '10.0.0.1', 'bob')).toBe('293');
  });

  it('lets the slow-down lapse with the window', async () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 5; i++) await instance.attempt(`10.0.${i}.1`, 'alice', wrong);
    expect(instance.delayFor('alice')).toBe(500);
    advance(300_000);
    expect(instance.delayFor('alice')).toBe(0);
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address', async () => {
    const { instance } = limiter();
    for (let i = 1; i <= 5; i++) await instance.attempt(`2001:db8:1:2::${i}`, 'alice', wrong);
    expect(refusal(instance, '2001:db8:1:2:ffff:1:2:3', 'alice')).toBe('300');
    expect(refusal(instance, '2001:db8:1:3::1', 'alice', right)).toBeUndefined();
    for (let i = 0; i < 5; i++) await instance.attempt('::ffff:192.0.2.7', 'bob', wrong);
    expect(refusal(instance, '192.0.2.7', 'bob')).toBe('300');
  });
});

describe('client keys', () => {
  it('are an IPv4 address, an IPv6 /64, or what was given when it is no address', () => {
    expect(clientKeyOf('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKeyOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:DB8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('::1')).toBe('::/64');
    expect(clientKeyOf('::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(clientKeyOf('not an address')).toBe('not an address');
  });
});
