import { describe, expect, it } from 'vitest';
import { closest, didYouMean, distance } from './suggest.js';

describe('distance', () => {
  it.each([
    ['', '', 0],
    ['port', 'port', 0],
    ['--prot', '--port', 2],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%s → %s is %i', (a, b, expected) => expect(distance(a, b)).toBe(expected));
});

describe('closest', () => {
  const flags = ['--host', '--port', '--data-dir'];
  it.each([
    ['--prot', '--port'],
    ['--data-dri', '--data-dir'],
    ['--colour-scheme', undefined],
  ])('%s suggests %s', (typed, expected) => expect(closest(typed, flags)).toBe(expected));

  it('renders a suggestion or nothing', () => {
    expect(didYouMean('gett', ['get', 'apply'])).toBe('; did you mean "get"?');
    expect(didYouMean('frobnicate', ['get', 'apply'])).toBe('');
  });
});
