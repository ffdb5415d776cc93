import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes what Date#toISOString writes, across seconds, fractions and padding', () => {
    const instants = [
      0, 5, 42, 999, 1000, 1_764_223_200_007.9, 1_764_223_200_120, 1_764_223_199_999, 1_764_223_201_000,
    ];
    for (const at of instants) expect(isoTime(at)).toBe(new Date(at).toISOString());
    expect(isoTime(1_764_223_200_007.9)).toBe('2025-11-27T06:00:00.007Z');
  });
});
