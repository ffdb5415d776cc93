import { describe, expect, it } from 'vitest';
import type { QueryParameters } from '../registry/list-query.js';
import { parseWatchRequest } from './watch-request.js';

describe('watch query parameters', () => {
  const ok: Array<[string, QueryParameters, Record<string, unknown>]> = [
    [
      'nothing',
      {},
      { labels: [], fields: [], resourceVersion: undefined, allowWatchBookmarks: false, timeoutSeconds: undefined },
    ],
    ['a revision to resume after', { resourceVersion: '42' }, { resourceVersion: 42 }],
    ['revision 0 as no revision', { resourceVersion: '0' }, { resourceVersion: undefined }],
    ['bookmarks', { allowWatchBookmarks: 'true' }, { allowWatchBookmarks: true }],
    ['bookmarks as 1', { allowWatchBookmarks: '1' }, { allowWatchBookmarks: true }],
    ['a timeout', { timeoutSeconds: '5' }, { timeoutSeconds: 5 }],
    [
      'selectors',
      { labelSelector: 'a=b', fieldSelector: 'spec.age=3' },
      {
        labels: [{ key: 'a', operator: 'in', values: ['b'] }],
        fields: [{ field: 'spec.age', operator: 'in', values: ['3'] }],
      },
    ],
  ];
  it.each(ok)('parses %s', (_name, query, expected) => {
    expect(parseWatchRequest(query)).toMatchObject(expected);
  });

  const bad: Array<[string, QueryParameters, RegExp]> = [
    ['a negative revision', { resourceVersion: '-1' }, /resourceVersion/],
    ['a revision that is not a number', { resourceVersion: 'abc' }, /resourceVersion/],
    ['two revisions', { resourceVersion: ['1', '2'] }, /only once/],
    ['a fractional timeout', { timeoutSeconds: '1.5' }, /timeoutSeconds/],
    ['a bookmark flag that is not a boolean', { allowWatchBookmarks: 'yes' }, /allowWatchBookmarks/],
    ['a malformed selector', { labelSelector: 'a in b' }, /labelSelector/],
  ];
  it.each(bad)('refuses %s with a 400', (_name, query, detail) => {
    expect(() => parseWatchRequest(query)).toThrow(detail);
    try {
      parseWatchRequest(query);
    } catch (error) {
      expect((error as { status: number }).status).toBe(400);
    }
  });
});
