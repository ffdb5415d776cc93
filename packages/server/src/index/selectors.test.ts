import { isApiError } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import {
  type FieldRequirement,
  type LabelRequirement,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  parseSort,
  type SortTerm,
} from './selectors.js';

/** Runs `parse` and returns the 400's detail, failing when it does not throw one. */
function badRequestOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    if (isApiError(error) && error.status === 400) return error.detail;
    throw error;
  }
  throw new Error('expected a 400');
}

const label = (key: string, operator: LabelRequirement['operator'], ...values: string[]): LabelRequirement => ({
  key,
  operator,
  values,
});
const field = (name: string, operator: FieldRequirement['operator'], ...values: string[]): FieldRequirement => ({
  field: name,
  operator,
  values,
});

describe('parseLabelSelector', () => {
  const good: Array<[string | string[] | undefined, LabelRequirement[]]> = [
    [undefined, []],
    ['', []],
    [[], []],
    ['app=web', [label('app', 'in', 'web')]],
    ['app==web', [label('app', 'in', 'web')]],
    ['app!=web', [label('app', 'notIn', 'web')]],
    ['app=', [label('app', 'in', '')]],
    ['!app', [label('app', 'notExists')]],
    ['app', [label('app', 'exists')]],
    ['app in (a,b)', [label('app', 'in', 'a', 'b')]],
    ['app in(a, b )', [label('app', 'in', 'a', 'b')]],
    ['app notin (a,b)', [label('app', 'notIn', 'a', 'b')]],
    ['app=(a,b)', [label('app', 'in', 'a', 'b')]],
    ['app!=(a,b)', [label('app', 'notIn', 'a', 'b')]],
    [' app = web ', [label('app', 'in', 'web')]],
    ['svc.run/role-template=true', [label('svc.run/role-template', 'in', 'true')]],
    [
      'rbac.authorization.svc.run/aggregate-to-editor',
      [label('rbac.authorization.svc.run/aggregate-to-editor', 'exists')],
    ],
    ['a=1,b!=2,!c,d', [label('a', 'in', '1'), label('b', 'notIn', '2'), label('c', 'notExists'), label('d', 'exists')]],
    ['a in (x,y),b=(1,2),c', [label('a', 'in', 'x', 'y'), label('b', 'in', '1', '2'), label('c', 'exists')]],
    [
      ['a=1', 'b=2,c'],
      [label('a', 'in', '1'), label('b', 'in', '2'), label('c', 'exists')],
    ],
    ['Tier=Front_end.v1', [label('Tier', 'in', 'Front_end.v1')]],
  ];
  it.each(good)('parses %j', (input, expected) => {
    expect(parseLabelSelector(input)).toEqual(expected);
  });

  const bad: Array<[string | string[], string]> = [
    ['a=1,,b', 'empty term'],
    ['a=1,', 'empty term'],
    [',a', 'empty term'],
    ['a in (x,y', 'unbalanced'],
    ['a in x,y)', 'unbalanced'],
    ['a in ()', 'empty'],
    ['a in (x,(y))', 'nested parentheses'],
    ['a in x', '"a in x"'],
    ['a notin', '"a notin"'],
    ['a=b c', '"b c" is not a valid label value'],
    ['a=-b', 'not a valid label value'],
    ['a b', 'not a valid label key'],
    ['-a=b', 'not a valid label key'],
    ['Svc.Run/x=1', 'not a valid label key'],
    ['!a=b', 'not a valid label key'],
    ['!', 'not a valid label key'],
    ['=b', 'not a valid label key'],
    ['a=(x)y', 'set of values'],
    [`a=${'x'.repeat(64)}`, 'not a valid label value'],
    [['a=1', 'b=!'], 'not a valid label value'],
  ];
  it.each(bad)('rejects %j (%s)', (input, message) => {
    const detail = badRequestOf(() => parseLabelSelector(input));
    expect(detail).toContain(message);
    expect(detail).toMatch(/labelSelector/);
  });

  it('quotes the bad term and lists the accepted forms', () => {
    const detail = badRequestOf(() => parseLabelSelector(['a=1', 'b=x y']));
    expect(detail).toContain('"b=x y"');
    expect(detail).toContain('key in (v1,v2)');
  });

  it('reads "b==" as b equal to the empty value', () => {
    expect(parseLabelSelector('b==')).toEqual([label('b', 'in', '')]);
  });
});

describe('parseFieldSelector', () => {
  const good: Array<[string | string[] | undefined, FieldRequirement[]]> = [
    [undefined, []],
    ['', []],
    ['spec.age=5', [field('spec.age', 'in', '5')]],
    ['spec.age==5', [field('spec.age', 'in', '5')]],
    ['spec.age!=5', [field('spec.age', 'notIn', '5')]],
    ['spec.age=(1,2,3)', [field('spec.age', 'in', '1', '2', '3')]],
    ['spec.age==(1,2)', [field('spec.age', 'in', '1', '2')]],
    ['spec.age!=(1,2)', [field('spec.age', 'notIn', '1', '2')]],
    ['metadata.deletionTimestamp=', [field('metadata.deletionTimestamp', 'in', '')]],
    ['metadata.deletionTimestamp!=', [field('metadata.deletionTimestamp', 'notIn', '')]],
    ['name=a,spec.x!=b', [field('name', 'in', 'a'), field('spec.x', 'notIn', 'b')]],
    [
      ['name=a', 'spec.x=(b,c)'],
      [field('name', 'in', 'a'), field('spec.x', 'in', 'b', 'c')],
    ],
    ['metadata.labels=app=web', [field('metadata.labels', 'in', 'app=web')]],
    ['spec.title=hello world', [field('spec.title', 'in', 'hello world')]],
    ['spec.title=f(x)', [field('spec.title', 'in', 'f(x)')]],
    ['spec.x=(a, ,b)', [field('spec.x', 'in', 'a', '', 'b')]],
    ['by-owner=alice', [field('by-owner', 'in', 'alice')]],
  ];
  it.each(good)('parses %j', (input, expected) => {
    expect(parseFieldSelector(input)).toEqual(expected);
  });

  const bad: Array<[string | string[], string]> = [
    ['spec.age', 'no operator'],
    ['spec.age>5', 'no operator'],
    ['=5', 'not a field name'],
    ['!=5', 'not a field name'],
    ['spec age=5', 'not a field name'],
    ['spec.age=(1,2', 'unbalanced'],
    ['spec.age=()', 'empty'],
    ['spec.age=(1)(2)', 'set of values'],
    ['spec.age=5,,name=a', 'empty term'],
    [['name=a', 'x'], '"x"'],
  ];
  it.each(bad)('rejects %j (%s)', (input, message) => {
    const detail = badRequestOf(() => parseFieldSelector(input));
    expect(detail).toContain(message);
    expect(detail).toMatch(/fieldSelector/);
  });

  it('quotes the bad term and lists the accepted forms', () => {
    const detail = badRequestOf(() => parseFieldSelector('name=a,spec.age'));
    expect(detail).toContain('"spec.age"');
    expect(detail).toContain('field=(v1,v2)');
  });
});

describe('parseSort', () => {
  const good: Array<[string | string[] | undefined, SortTerm[]]> = [
    [undefined, []],
    ['', []],
    ['spec.age', [{ field: 'spec.age', direction: 'asc' }]],
    ['spec.age,asc', [{ field: 'spec.age', direction: 'asc' }]],
    ['spec.age,desc', [{ field: 'spec.age', direction: 'desc' }]],
    ['spec.age,DESC', [{ field: 'spec.age', direction: 'desc' }]],
    ['spec.age, Asc', [{ field: 'spec.age', direction: 'asc' }]],
    [
      ['spec.age,desc', 'metadata.name'],
      [
        { field: 'spec.age', direction: 'desc' },
        { field: 'metadata.name', direction: 'asc' },
      ],
    ],
    [
      'spec.gender,spec.age,desc',
      [
        { field: 'spec.gender', direction: 'desc' },
        { field: 'spec.age', direction: 'desc' },
      ],
    ],
    [
      'a,b',
      [
        { field: 'a', direction: 'asc' },
        { field: 'b', direction: 'asc' },
      ],
    ],
  ];
  it.each(good)('parses %j', (input, expected) => {
    expect(parseSort(input)).toEqual(expected);
  });

  it.each([',desc', 'desc', 'a,,desc', 'spec age,desc', 'a=b', ['a', ',asc']])('rejects %j', (input) => {
    const detail = badRequestOf(() => parseSort(input));
    expect(detail).toContain('invalid sort');
    expect(detail).toContain('<field>,desc');
  });
});

describe('matchesLabels', () => {
  const labels = { app: 'web', tier: 'front', empty: '' };
  const table: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['app=web', labels, true],
    ['app=api', labels, false],
    ['app!=api', labels, true],
    ['app!=web', labels, false],
    ['missing!=x', labels, true], // Kubernetes: != includes objects without the key
    ['missing notin (x)', labels, true],
    ['missing in (x)', labels, false],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['app', labels, true],
    ['!app', labels, false],
    ['empty=', labels, true],
    ['empty', labels, true],
    ['app in (api,web)', labels, true],
    ['app notin (api,web)', labels, false],
    ['app=(api,web),tier=front', labels, true],
    ['app=web,tier=back', labels, false],
    ['app', undefined, false],
    ['!app', undefined, true],
    ['app!=web', undefined, true],
    ['', undefined, true],
    ['toString', {}, false], // own keys only
  ];
  it.each(table)('%j on %j is %s', (selector, value, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), value)).toBe(expected);
  });
});

describe('matchesFields', () => {
  const object: Record<string, string[]> = { 'spec.age': ['42'], 'spec.tags': ['a', 'b'], 'spec.none': [] };
  const valuesOf = (name: string) => object[name] ?? [];
  const table: Array<[string, boolean]> = [
    ['spec.age=42', true],
    ['spec.age=(1,42)', true],
    ['spec.age!=42', false],
    ['spec.age!=1', true],
    ['spec.age=', false],
    ['spec.age!=', true],
    ['spec.none=', true],
    ['spec.none!=x', true],
    ['spec.none=x', false],
    ['spec.tags=b', true],
    ['spec.tags!=b', false],
    ['spec.tags=(c,a)', true],
    ['spec.tags!=(c,d)', true],
    ['spec.age=42,spec.tags=c', false],
  ];
  it.each(table)('%j is %s', (selector, expected) => {
    expect(matchesFields(parseFieldSelector(selector), valuesOf)).toBe(expected);
  });
});
