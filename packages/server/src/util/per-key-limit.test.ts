import { describe, expect, it } from 'vitest';
import { PerKeyLimit, streamOwner } from './per-key-limit.js';

describe('PerKeyLimit', () => {
  it('hands out up to max per key, and one more once one is given back', () => {
    const limit = new PerKeyLimit(2);
    const first = limit.take('ann');
    expect(limit.take('ann')).toBeTypeOf('function');
    expect(limit.take('ann')).toBeUndefined();
    expect(limit.take('bob')).toBeTypeOf('function');
    first!();
    expect(limit.count('ann')).toBe(1);
    expect(limit.take('ann')).toBeTypeOf('function');
    expect(limit.count('ann')).toBe(2);
  });

  it('counts a release once, however often it is called', () => {
    const limit = new PerKeyLimit(1);
    const release = limit.take('ann')!;
    const other = limit.take('bob')!;
    release();
    release();
    expect(limit.count('ann')).toBe(0);
    expect(limit.count('bob')).toBe(1);
    other();
    expect(limit.take('ann')).toBeTypeOf('function');
    expect(limit.take('ann')).toBeUndefined();
  });

  it('keys a signed-in user by name and an anonymous caller by address', () => {
    expect(streamOwner('ann', '10.0.0.1')).toBe('user "ann"');
    expect(streamOwner(undefined, '10.0.0.1')).toBe('anonymous client 10.0.0.1');
  });
});
