import { describe, expect, it } from 'vitest';
import { duplicateJsonKey, jsonTextProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES, nestsDeeperThan } from './json-limits.js';

const nested = (levels: number, open = '[', close = ']') => `${open.repeat(levels)}${close.repeat(levels)}`;
const deepValue = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe('jsonTextProblem', () => {
  const cases: Array<{ name: string; text: string; problem?: string }> = [
    { name: 'a flat object', text: '{"a":1,"b":"x"}' },
    { name: 'exactly 100 levels of arrays', text: nested(100) },
    { name: '101 levels of arrays', text: nested(101), problem: 'nests deeper than 100 levels' },
    {
      name: '101 levels mixing objects and arrays',
      text: `${'{"a":['.repeat(50)}{}${']}'.repeat(50)}`,
      problem: 'deeper than 100',
    },
    { name: 'brackets inside strings do not count', text: `{"a":"${'['.repeat(500)}"}` },
    { name: 'an escaped quote keeps the string open', text: `{"a":"\\"${'{'.repeat(500)}"}` },
    { name: 'a surrogate pair', text: '{"a":"\\ud83d\\ude00"}' },
    { name: 'an escaped backslash before u', text: '{"a":"\\\\ud800"}' },
    { name: 'a lone high surrogate', text: '{"a":"\\ud800"}', problem: 'lone UTF-16 surrogate' },
    { name: 'a high surrogate followed by a letter', text: '{"a":"\\ud800x"}', problem: 'lone UTF-16 surrogate' },
    { name: 'a lone low surrogate', text: '{"a":"\\uDC00"}', problem: 'lone UTF-16 surrogate' },
    { name: 'two high surrogates', text: '{"a":"\\ud800\\ud800"}', problem: 'lone UTF-16 surrogate' },
    { name: 'a NUL escape is text', text: '{"a":"\\u0000"}' },
    { name: 'malformed JSON is left to the parser', text: '{"a":' },
    // 1 array + 99,999 commas: 100,000 values; one more comma is over.
    { name: '100,000 values', text: `[${Array(100_000).fill('1').join(',')}]` },
    { name: '100,001 values', text: `[${Array(100_001).fill('1').join(',')}]`, problem: 'more than 100000 values' },
    { name: '50,001 empty arrays in one', text: `[${Array(50_001).fill('[]').join(',')}]`, problem: 'values' },
    { name: 'commas inside strings do not count', text: `{"a":"${','.repeat(200_000)}"}` },
  ];
  it.each(cases)('$name', ({ text, problem }) => {
    const found = jsonTextProblem(text);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('is the limit the docs state', () => {
    expect(MAX_JSON_DEPTH).toBe(100);
    expect(MAX_JSON_VALUES).toBe(100_000);
  });

  it('scans a document deeper than the stack without overflowing', () => {
    expect(jsonTextProblem(nested(1_000_000))).toContain('deeper than 100');
  });
});

describe('nestsDeeperThan', () => {
  const cases: Array<{ name: string; value: unknown; max: number; want: boolean }> = [
    { name: 'a scalar', value: 'x', max: 1, want: false },
    { name: 'null', value: null, max: 0, want: false },
    { name: 'an empty object is one level', value: {}, max: 1, want: false },
    { name: 'an empty object over a limit of 0', value: {}, max: 0, want: true },
    { name: '100 levels at 100', value: deepValue(100), max: 100, want: false },
    { name: '101 levels at 100', value: deepValue(101), max: 100, want: true },
    {
      name: 'depth is the deepest branch (object, array, array, array)',
      value: { a: [1, [2, [3]]], b: {} },
      max: 4,
      want: false,
    },
    { name: 'the deepest branch over the limit', value: { a: [1, [2, [3]]], b: {} }, max: 3, want: true },
  ];
  it.each(cases)('$name', ({ value, max, want }) => {
    expect(nestsDeeperThan(value, max)).toBe(want);
  });

  it('walks a value deeper than the stack without overflowing', () => {
    expect(nestsDeeperThan(deepValue(200_000))).toBe(true);
  });
});

describe('duplicateJsonKey', () => {
  const cases: Array<{ name: string; text: string; want?: string }> = [
    { name: 'distinct keys', text: '{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}' },
    { name: 'a key twice', text: '{"a":1,"b":2,"a":3}', want: 'a' },
    { name: 'a key twice in a nested object', text: '{"x":{"k":1,"k":2}}', want: 'k' },
    { name: 'a key twice in an object in an array', text: '[1,{"k":1, "k" :2}]', want: 'k' },
    { name: 'string values are not keys', text: '{"a":"b","b":"a","c":["a","a"]}' },
    { name: 'escapes are compared unescaped', text: '{"a":1,"\\u0061":2}', want: 'a' },
    { name: 'an escaped quote stays inside the key', text: '{"a\\"b":1,"a":2,"b":3}' },
    { name: 'an escaped quote key twice', text: '{"a\\"b":1,"a\\"b":2}', want: 'a"b' },
    { name: 'whitespace between the parts', text: '{ "a" : 1 ,\n "a" : 2 }', want: 'a' },
    { name: 'no object at all', text: '"a"' },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(duplicateJsonKey(text)).toBe(want);
  });
});
