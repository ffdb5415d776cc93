import { describe, expect, it } from 'vitest';
import { columns } from './columns.js';

describe('columns', () => {
  it.each([
    ['nothing', [], {}, []],
    ['one column', [['a'], ['bcd']], {}, ['a', 'bcd']],
    [
      'two columns',
      [
        ['a', 'x'],
        ['bcd', 'y'],
      ],
      {},
      ['a    x', 'bcd  y'],
    ],
    [
      'three, the last unpadded',
      [
        ['a', 'bb', 'x'],
        ['', 'b', 'y'],
      ],
      {},
      ['a  bb  x', '   b   y'],
    ],
    [
      'an empty last cell, no trailing space',
      [
        ['a', ''],
        ['bb', 'y'],
      ],
      {},
      ['a', 'bb  y'],
    ],
    [
      'a gap of one',
      [
        ['a', 'x'],
        ['bb', 'y'],
      ],
      { gap: 1 },
      ['a  x', 'bb y'],
    ],
  ])('aligns %s', (_, rows, options, lines) => {
    expect(columns(rows, options)).toEqual(lines);
  });
});
