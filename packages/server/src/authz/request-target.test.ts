import { describe, expect, it } from 'vitest';
import { parseRequestTarget, type RequestTarget } from './request-target.js';

const P = '/apis/people.svc.run/v1alpha1/persons';

const accepted: Array<{ name: string; raw: string; host?: string; want: Partial<RequestTarget> }> = [
  {
    name: 'a plain path',
    raw: `${P}/ann`,
    want: {
      segments: ['apis', 'people.svc.run', 'v1alpha1', 'persons', 'ann'],
      path: `${P}/ann`,
      routePath: `${P}/ann`,
      search: '',
    },
  },
  { name: 'the root', raw: '/', want: { segments: [], path: '/', routePath: '/', search: '' } },
  {
    name: 'empty segments and a trailing slash',
    raw: '//apis//people.svc.run/v1alpha1/persons/',
    want: { path: P, routePath: P },
  },
  {
    name: 'a query',
    raw: `${P}?size=2&sort=spec.age,desc`,
    want: { path: P, search: 'size=2&sort=spec.age,desc', query: { size: '2', sort: 'spec.age,desc' } },
  },
  {
    name: 'repeated keys become arrays',
    raw: `${P}?labelSelector=a&labelSelector=b`,
    want: { query: { labelSelector: ['a', 'b'] } },
  },
  {
    name: 'percent-encoded query values and + as space',
    raw: `${P}?labelSelector=team%20in%20(a,b)&x=a+b`,
    want: { query: { labelSelector: 'team in (a,b)', x: 'a b' } },
  },
  {
    name: 'a "#" encoded in the query is data',
    raw: `${P}?fieldSelector=spec.name%3D%23x`,
    want: { query: { fieldSelector: 'spec.name=#x' } },
  },
  {
    name: 'percent-encoded path segments are decoded',
    raw: '/apis/people.svc.run/v1alpha1/person%73/%61nn',
    want: { path: `${P}/ann`, routePath: `${P}/ann` },
  },
  {
    name: 'a decoded segment is encoded again for the router',
    raw: `${P}/a%3Ab%25c`,
    want: { segments: ['apis', 'people.svc.run', 'v1alpha1', 'persons', 'a:b%c'], routePath: `${P}/a%3Ab%25c` },
  },
  {
    name: 'UTF-8 in a segment',
    raw: `${P}/%C3%BC`,
    want: { segments: ['apis', 'people.svc.run', 'v1alpha1', 'persons', 'ü'], routePath: `${P}/%C3%BC` },
  },
  {
    name: 'a second "?" belongs to the query',
    raw: `${P}?a=1?b`,
    want: { path: P, search: 'a=1?b', query: { a: '1?b' } },
  },
  {
    name: 'absolute form for this host',
    raw: `http://127.0.0.1:8090${P}?size=1`,
    host: '127.0.0.1:8090',
    want: { path: P, search: 'size=1' },
  },
  {
    name: 'absolute form: host compared case-insensitively',
    raw: `HTTP://LocalHost:8090${P}`,
    host: 'localhost:8090',
    want: { path: P },
  },
  {
    name: 'absolute form with no path is the root',
    raw: 'http://127.0.0.1:8090',
    host: '127.0.0.1:8090',
    want: { path: '/' },
  },
  {
    name: 'absolute form with only a query',
    raw: 'http://127.0.0.1:8090?a=1',
    host: '127.0.0.1:8090',
    want: { path: '/', query: { a: '1' } },
  },
];

const refused: Array<{ name: string; raw: string; host?: string; problem: string }> = [
  { name: 'a fragment after a collection', raw: `${P}/#x`, problem: 'contains "#"' },
  { name: 'a fragment that fakes a query', raw: `${P}/#&watch=true`, problem: 'contains "#"' },
  { name: 'a fragment that fakes a subresource', raw: `${P}/ann#/status`, problem: 'contains "#"' },
  { name: 'a fragment in the query', raw: `${P}?a=1#b`, problem: 'contains "#"' },
  { name: 'a raw space', raw: `${P}/a b`, problem: 'raw character U+0020' },
  { name: 'a raw NUL', raw: `${P}/a\u0000`, problem: 'raw character U+0000' },
  { name: 'a raw DEL', raw: `${P}/a\u007f`, problem: 'raw character U+007F' },
  { name: 'a raw non-ASCII character', raw: `${P}/\u00fc`, problem: 'raw character U+00FC' },
  { name: 'a lone "%"', raw: `${P}/%`, problem: 'does not start a percent-encoded byte' },
  { name: '"%zz"', raw: `${P}/%zz`, problem: 'does not start a percent-encoded byte' },
  { name: 'an overlong UTF-8 dot', raw: `${P}/%C0%AE`, problem: 'not valid percent-encoded UTF-8' },
  { name: 'an encoded slash', raw: `${P}/a%2Fb`, problem: 'encodes a "/"' },
  { name: 'an encoded control character', raw: `${P}/a%0Ab`, problem: 'encodes a control character' },
  { name: 'a dot-dot segment', raw: `${P}/../roles`, problem: '".." segment' },
  { name: 'a dot segment', raw: `${P}/./ann`, problem: '".." segment' },
  { name: 'an encoded dot-dot segment', raw: `${P}/%2E%2e`, problem: '".." segment' },
  { name: 'a malformed query', raw: `${P}?labelSelector=%zz`, problem: 'query string has a "%"' },
  { name: 'invalid UTF-8 in the query', raw: `${P}?a=%FF`, problem: 'query string is not valid' },
  {
    name: 'absolute form for another host',
    raw: `http://evil.example${P}`,
    host: '127.0.0.1:8090',
    problem: 'names host "evil.example"',
  },
  { name: 'absolute form with no Host header', raw: `http://127.0.0.1:8090${P}`, problem: 'no Host header' },
  { name: 'asterisk form', raw: '*', problem: 'must be a path starting with "/"' },
  { name: 'authority form', raw: '127.0.0.1:8090', problem: 'must be a path starting with "/"' },
];

describe('parseRequestTarget', () => {
  it.each(accepted)('accepts $name', ({ raw, host, want }) => {
    const result = parseRequestTarget(raw, host);
    expect(result.ok).toBe(true);
    if (result.ok) expect({ ...result.target, query: { ...result.target.query } }).toMatchObject(want);
  });

  it.each(refused)('refuses $name', ({ raw, host, problem }) => {
    const result = parseRequestTarget(raw, host);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(problem);
  });

  it('gives a query that inherits nothing: prototype keys are plain parameters', () => {
    const result = parseRequestTarget(`${P}?__proto__=x&constructor=y`);
    if (!result.ok) throw new Error(result.problem);
    const { query } = result.target;
    expect('toString' in query).toBe(false);
    // biome-ignore lint/suspicious/noProto: the test is that `__proto__` is an ordinary key here.
    expect([query.__proto__, query.constructor]).toEqual(['x', 'y']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('reads a canonical path the same on the fast path as a decoded one', () => {
    const fast = parseRequestTarget(`${P}/ann?size=1`);
    const slow = parseRequestTarget('/apis/people.svc.run/v1alpha1/person%73/%61nn?size=1');
    if (!fast.ok || !slow.ok) throw new Error('both parse');
    expect({ ...fast.target, query: { ...fast.target.query } }).toEqual({
      ...slow.target,
      query: { ...slow.target.query },
    });
  });
});
