import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/seeded-random.js';
import { fromNaturalSortKey, naturalCompare, naturalSortKey } from './natural-compare.js';

const sign = (n: number) => Math.sign(n);
const plainCompare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Pairs of random strings made of `pieces` (seeded, so a failure repeats): the second often shares a prefix with the
 * first, so that their difference falls inside or next to digit runs.
 */
function randomPairs(
  seed: number,
  pieces: readonly string[],
  maxPieces: number,
  count: number,
): Array<[string, string]> {
  const random = seededRandom(seed);
  const word = () =>
    Array.from({ length: Math.floor(random() * maxPieces) }, () => pieces[Math.floor(random() * pieces.length)]).join(
      '',
    );
  return Array.from({ length: count }, () => {
    const a = word();
    return [a, random() < 0.7 ? a.slice(0, Math.floor(random() * (a.length + 1))) + word() : word()];
  });
}

describe('naturalCompare', () => {
  // [a, b, expected sign of naturalCompare(a, b)]
  const table: Array<[string, string, -1 | 0 | 1]> = [
    ['', '', 0],
    ['', 'a', -1],
    ['', '0', -1],
    ['a', 'a', 0],
    ['abc', 'abd', -1],
    ['abc', 'ab', 1],
    ['B', 'a', -1], // code units, not case-insensitive
    ['2', '10', -1],
    ['10', '2', 1],
    ['9', '9', 0],
    ['age9', 'age10', -1],
    ['age10', 'age9', 1],
    ['age10', 'age10', 0],
    ['a2b', 'a10a', -1],
    ['a10b', 'a10c', -1],
    ['x1y2', 'x1y10', -1],
    ['x2y1', 'x10y1', -1],
    // Leading zeros: equal value, then fewer zeros first.
    ['1', '01', -1],
    ['01', '001', -1],
    ['0', '00', -1],
    ['007', '7', 1],
    ['007', '8', -1],
    ['a01b', 'a1c', 1],
    ['a01', 'a1b', 1], // 01 vs 1 already differs before "b" is seen
    // Digit runs beyond 2^53 compare exactly.
    ['9007199254740993', '9007199254740992', 1],
    ['9007199254740992', '9007199254740993', -1],
    ['123456789012345678901234567890', '123456789012345678901234567891', -1],
    ['99999999999999999999', '100000000000000000000', -1],
    ['00099999999999999999999', '100000000000000000000000', -1],
    // Digit runs sit between '/' and ':' against other characters.
    ['a1', 'a/', 1],
    ['a1', 'a:', -1],
    ['a10', 'a:', -1],
    ['1', 'a', -1],
    ['-5', '3', -1],
    ['a', 'a1', -1],
    // Timestamps keep chronological order.
    ['2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05.679Z', -1],
    ['2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z', -1],
    // UTF-16 code units beyond ASCII.
    ['é', 'z', 1],
    ['\u{1F600}', '\uFFFF', -1], // surrogate pair starts with 0xD83D
    ['k1=v', 'k1=v2', -1],
  ];

  it.each(table)('compare(%j, %j) = %i', (a, b, expected) => {
    expect(sign(naturalCompare(a, b))).toBe(expected);
    expect(sign(naturalCompare(b, a))).toBe(-expected || 0);
  });

  it.each(table)('sort keys of %j and %j compare by code unit as %i', (a, b, expected) => {
    expect(sign(plainCompare(naturalSortKey(a), naturalSortKey(b)))).toBe(expected);
  });

  it('is 0 only for identical strings', () => {
    expect(naturalCompare('01', '1')).not.toBe(0);
    expect(naturalCompare('a', 'a')).toBe(0);
  });

  it('agrees with a tokenize-and-BigInt reference on random strings', () => {
    const tokens = (s: string) => s.match(/[0-9]+|[^0-9]/g) ?? [];
    const reference = (a: string, b: string): number => {
      const [ta, tb] = [tokens(a), tokens(b)];
      for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
        const [x, y] = [ta[i]!, tb[i]!];
        const digits = /^[0-9]/;
        if (digits.test(x) && digits.test(y)) {
          const [vx, vy] = [BigInt(x), BigInt(y)];
          if (vx !== vy) return vx < vy ? -1 : 1;
          if (x.length !== y.length) return x.length < y.length ? -1 : 1;
        } else if (x !== y) {
          return x.charCodeAt(0) < y.charCodeAt(0) ? -1 : 1;
        }
      }
      return Math.sign(ta.length - tb.length);
    };
    for (const [a, b] of randomPairs(7, ['0', '1', '5', '9', 'a', '/', ':', '.'], 8, 20000)) {
      expect([a, b, sign(naturalCompare(a, b))]).toEqual([a, b, reference(a, b)]);
    }
  });

  it('is a consistent total order on random strings (sorting is stable under reversal, transitive)', () => {
    const alphabet = ['0', '0', '1', '2', '9', 'a', 'b', '/', ':', '-', 'Z'];
    const random = seededRandom(42);
    const strings = Array.from({ length: 400 }, () =>
      Array.from({ length: Math.floor(random() * 7) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    const sorted = [...strings].sort(naturalCompare);
    const sortedReverse = [...strings].reverse().sort(naturalCompare);
    expect(sortedReverse).toEqual(sorted);
    for (let i = 1; i < sorted.length; i++) {
      expect(naturalCompare(sorted[i - 1]!, sorted[i]!)).toBeLessThanOrEqual(0);
    }
    // Spot-check transitivity over triples.
    for (let n = 0; n < 5000; n++) {
      const [x, y, z] = [0, 1, 2].map(() => strings[Math.floor(random() * strings.length)]!) as [
        string,
        string,
        string,
      ];
      if (naturalCompare(x, y) <= 0 && naturalCompare(y, z) <= 0) expect(naturalCompare(x, z)).toBeLessThanOrEqual(0);
    }
  });
});

describe('naturalSortKey', () => {
  it.each([
    ['w-12345'],
    ['p-0'],
    ['00'],
    ['a007b0000c'],
    ['2026-11-23T07:29:45.123Z'],
    ['x123456789012y'],
    [`${'0'.repeat(300)}9`],
  ])('gives back %j from its key', (text) => expect(fromNaturalSortKey(naturalSortKey(text))).toBe(text));

  it('is the string itself when it has no digits (no copy)', () => {
    for (const text of ['', 'abc', 'people.svc.run/team', 'é-z']) expect(naturalSortKey(text)).toBe(text);
  });

  it('orders by code unit exactly as naturalCompare, and is equal only for identical strings, on random strings', () => {
    // Long runs too: 9+ significant digits and 255+ leading zeros take the multi-unit length codes.
    const pieces = [
      '0',
      '0',
      '1',
      '5',
      '9',
      'a',
      '/',
      ':',
      '.',
      '\u00ff',
      '0'.repeat(260),
      '12345678901',
      '0'.repeat(254),
    ];
    for (const [a, b] of randomPairs(11, pieces, 7, 20000)) {
      const [ka, kb] = [naturalSortKey(a), naturalSortKey(b)];
      expect([a, b, sign(plainCompare(ka, kb))]).toEqual([a, b, sign(naturalCompare(a, b))]);
      expect(ka === kb).toBe(a === b);
      expect(fromNaturalSortKey(ka)).toBe(a);
    }
  });

  it('keeps an ASCII string one-byte (every code unit of the key is below 256)', () => {
    const key = naturalSortKey(`w-${'7'.repeat(300)}-${'0'.repeat(300)}1`);
    expect([...key].every((c) => c.charCodeAt(0) < 256)).toBe(true);
  });
});
