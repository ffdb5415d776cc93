import { describe, expect, it } from 'vitest';
import { applyMergePatch, mergePatchBetween } from '../src/resources/merge-patch.js';
import { objectForm, withValueAt } from '../src/resources/schema-fields.js';
import { fieldFiltersOf, fieldSelectorOf, queryOf, sortOf, stateOf } from '../src/resources/selectors.js';
import { titleOf } from '../src/resources/titles.js';

describe("the resource browser's pure parts", () => {
  it('re-applies the changes a user made onto a newer version (RFC 7386)', () => {
    const loaded = {
      metadata: { version: 1, labels: { a: '1', b: '2' } },
      spec: { name: 'Ada', age: 36, tags: ['x'] },
    };
    const edited = { metadata: { version: 1, labels: { a: '1' } }, spec: { name: 'Ada', age: 37, tags: ['x', 'y'] } };
    const patch = mergePatchBetween(loaded, edited);
    expect(patch).toEqual({ metadata: { labels: { b: null } }, spec: { age: 37, tags: ['x', 'y'] } });
    const theirs = { metadata: { version: 2, labels: { a: '1', b: '2', c: '3' } }, spec: { name: 'Ada L.', age: 36 } };
    expect(applyMergePatch(theirs, patch)).toEqual({
      metadata: { version: 2, labels: { a: '1', c: '3' } },
      spec: { name: 'Ada L.', age: 37, tags: ['x', 'y'] },
    });
  });

  it("builds a Person's form from its schema, leaving the self-reference to YAML", () => {
    const schema = {
      type: 'object',
      required: ['spec'],
      properties: {
        spec: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 100 },
            age: { type: 'integer', minimum: 0, maximum: 150 },
            gender: { type: 'string', enum: ['MALE', 'FEMALE'] },
            tags: { type: 'array', items: { type: 'string' } },
            married: { type: 'boolean' },
            otherPerson: { $ref: '#' },
          },
        },
        status: { type: 'object' },
      },
    };
    const [spec, ...rest] = objectForm(schema, true);
    expect(rest).toEqual([]);
    expect(spec!.kind).toBe('object');
    expect(spec!.children!.map((f) => [f.pointer, f.label, f.kind, f.required])).toEqual([
      ['/spec/name', 'Name', 'string', true],
      ['/spec/age', 'Age', 'integer', false],
      ['/spec/gender', 'Gender', 'enum', false],
      ['/spec/tags', 'Tags', 'list', false],
      ['/spec/married', 'Married', 'boolean', false],
      ['/spec/otherPerson', 'Other person', 'yaml', false],
    ]);
    expect(objectForm(schema, false).map((f) => f.pointer)).toEqual(['/spec', '/status']);
  });

  it('sets and clears a value at a path without leaving empty objects', () => {
    expect(withValueAt({ spec: { age: 3 } }, ['spec', 'name'], 'Ada')).toEqual({ spec: { age: 3, name: 'Ada' } });
    expect(withValueAt({ spec: { age: 3 } }, ['spec', 'age'], undefined)).toEqual({});
  });

  it('writes field selectors and sorts as svc reads them', () => {
    expect(
      fieldSelectorOf([
        { index: 'spec.gender', operator: '=', value: 'FEMALE' },
        { index: '', operator: '=', value: 'x' },
        { index: 'spec.age', operator: '!=', value: ' 30 ' },
      ]),
    ).toBe('spec.gender=FEMALE,spec.age!=30');
    expect(fieldSelectorOf([])).toBeUndefined();
    expect(sortOf('spec.age', -1)).toBe('spec.age,desc');
    expect(sortOf(undefined, 1)).toBeUndefined();
  });

  it("keeps a table's state in the URL query, defaults left out, and reads it back", () => {
    const state = {
      page: 3,
      size: 50,
      sort: 'spec.age,desc',
      labelSelector: 'team=a',
      fieldSelector: 'spec.gender=FEMALE',
    };
    expect(queryOf(state)).toEqual({
      page: '3',
      size: '50',
      sort: 'spec.age,desc',
      labelSelector: 'team=a',
      fieldSelector: 'spec.gender=FEMALE',
    });
    expect(stateOf(queryOf(state))).toEqual(state);
    expect(queryOf({ page: 1, size: 20 })).toEqual({});
    expect(stateOf({ page: 'x', size: '-2' })).toEqual({
      page: 1,
      size: 20,
      sort: undefined,
      labelSelector: undefined,
      fieldSelector: undefined,
    });
    expect(fieldFiltersOf('spec.gender=FEMALE,spec.age!=30')).toEqual([
      { index: 'spec.gender', operator: '=', value: 'FEMALE' },
      { index: 'spec.age', operator: '!=', value: '30' },
    ]);
  });

  it.each([
    ['Person', 'persons', 'Persons'],
    ['RoleBinding', 'rolebindings', 'Role bindings'],
    ['PersonalAccessToken', 'personalaccesstokens', 'Personal access tokens'],
    ['Mouse', 'mice', 'Mice'],
  ])('titles %s (%s) as "%s"', (kind, plural, title) => {
    expect(titleOf({ kind, plural })).toBe(title);
  });
});
