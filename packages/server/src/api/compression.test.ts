import { describe, expect, it } from 'vitest';
import { varyWith } from './compression.js';

describe('varyWith', () => {
  it.each([
    [undefined, 'accept-encoding'],
    ['', 'accept-encoding'],
    ['origin', 'origin, accept-encoding'],
    ['Origin, Accept-Encoding', 'Origin, Accept-Encoding'],
    ['accept-encoding', 'accept-encoding'],
    ['*', '*'],
    [['origin', 'cookie'], 'origin, cookie, accept-encoding'],
    ['accept-encoding-extra', 'accept-encoding-extra, accept-encoding'],
  ])('adds Accept-Encoding once to %j', (vary, expected) => {
    expect(varyWith(vary)).toBe(expected);
  });
});
