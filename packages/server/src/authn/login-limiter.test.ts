import { describe, expect, it } from 'vitest';
import { LoginLimiter } from './login-limiter.js';

function limiter() {
  let now = 1_000_000;
  const instance = new LoginLimiter({ maxFailures: 5, windowMs: 300_000 }, () => now);
  return { instance, advance: (ms: number) => (now += ms) };
}

const retryAfter = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ status: 429 });
    return (error as { headers: Record<string, string> }).headers['retry-after'];
  }
};

describe('login limiter', () => {
  it('refuses the sixth attempt after five failures, with Retry-After until the oldest failure leaves the window', () => {
    const { instance, advance } = limiter();
    for (let i = 0; i < 5; i++) {
      instance.check('10.0.0.1', 'alice');
      instance.recordFailure('10.0.0.1', 'alice');
      advance(1000);
    }
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBe('295');
    advance(295_000);
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBeUndefined();
  });

  it('limits a username whatever the client, and a client whatever the username', () => {
    const { instance } = limiter();
    for (let i = 0; i < 5; i++) instance.recordFailure(`10.0.0.${i}`, 'alice');
    expect(retryAfter(() => instance.check('10.9.9.9', 'alice'))).toBeDefined();
    expect(retryAfter(() => instance.check('10.9.9.9', 'bob'))).toBeUndefined();
    for (let i = 0; i < 5; i++) instance.recordFailure('10.1.1.1', `user${i}`);
    expect(retryAfter(() => instance.check('10.1.1.1', 'carol'))).toBeDefined();
  });

  it('forgets failures after a successful sign-in', () => {
    const { instance } = limiter();
    for (let i = 0; i < 4; i++) instance.recordFailure('10.0.0.1', 'alice');
    instance.recordSuccess('10.0.0.1', 'alice');
    instance.recordFailure('10.0.0.1', 'alice');
    expect(retryAfter(() => instance.check('10.0.0.1', 'alice'))).toBeUndefined();
  });
});
