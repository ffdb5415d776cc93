import { describe, expect, it } from 'vitest';
import { expiryOf } from './args.js';
import { includes, readManifests } from './manifests.js';
import { serverTableText, table } from './output.js';

describe('the online commands, pure parts', () => {
  const now = new Date('2026-01-02T03:04:05.000Z');

  it('pads table columns to the widest cell', () => {
    expect(
      table([
        ['NAME', 'AGE'],
        ['a-long-name', '5s'],
      ]),
    ).toBe('NAME          AGE\na-long-name   5s');
  });

  it("prints a server's Table: priority-0 columns, upper-cased, empty cells for nothing", () => {
    const answer = {
      columnDefinitions: [{ name: 'Name' }, { name: 'Full Name' }, { name: 'Age Group', priority: 1 }, { name: 'Age' }],
      rows: [{ cells: ['ada', 'Ada Lovelace', 'adult', '3m'] }, { cells: ['kid', null, 'child', '12s'] }],
    };
    expect(serverTableText(answer)).toBe(
      `NAME   FULL NAME      AGE\nada    Ada Lovelace   3m\nkid${' '.repeat(19)}12s`,
    );
  });

  it.each([
    ['90d', '2026-04-02T03:04:05.000Z'],
    ['12h', '2026-01-02T15:04:05.000Z'],
    ['never', undefined],
  ])('reads --expires %s', (text, expected) => {
    expect(expiryOf(text, now)).toBe(expected);
  });

  it('refuses an --expires it cannot read', () => {
    expect(() => expiryOf('soon', now)).toThrow('--expires takes a duration');
  });

  it.each([
    [{ spec: { a: 1, b: [1, 2] }, x: 1 }, { spec: { a: 1 } }, true],
    [{ spec: { a: 1, b: [1, 2] } }, { spec: { b: [1, 2] } }, true],
    [{ spec: { a: 1, b: [1, 2] } }, { spec: { b: [1] } }, false],
    [{ spec: { a: 1 } }, { spec: { a: 2 } }, false],
    [{ spec: { a: 1 } }, { spec: { c: 1 } }, false],
    [{ metadata: { labels: { k: 'v' } } }, { metadata: { labels: {} } }, true],
  ])('knows whether %j already has %j', (stored, wanted, expected) => {
    expect(includes(stored, wanted)).toBe(expected);
  });

  it('reads several documents and Lists, leaving out status and server-owned metadata', () => {
    const text = `apiVersion: a/v1
kind: A
metadata: {name: one, version: 3, resourceVersion: "9", uid: u, labels: {k: v}}
status: {phase: Ready}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: a/v1, kind: A, metadata: {name: two}}
---
`;
    expect(readManifests(text, 'f.yaml')).toEqual([
      { apiVersion: 'a/v1', kind: 'A', metadata: { name: 'one', labels: { k: 'v' } } },
      { apiVersion: 'a/v1', kind: 'A', metadata: { name: 'two' } },
    ]);
    expect(() => readManifests('kind: A\nmetadata: {}\n', 'f.yaml')).toThrow(
      'f.yaml: every object needs metadata.name',
    );
    expect(() => readManifests('a: [', 'f.yaml')).toThrow(/^f\.yaml: /);
  });
});
