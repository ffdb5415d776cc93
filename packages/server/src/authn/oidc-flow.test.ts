import { describe, expect, it } from 'vitest';
import { FLOW_COOKIE, isConsolePath, readFlow } from './oidc-flow.js';

const cookieOf = (value: unknown) =>
  `other=1; ${FLOW_COOKIE}=${Buffer.from(JSON.stringify(value)).toString('base64url')}`;
const flow = { state: 's', nonce: 'n', verifier: 'v', returnTo: '/console/users', startedAt: 1 };

describe('isConsolePath', () => {
  it.each([
    ['/console', true],
    ['/console/', true],
    ['/console/users?page=2', true],
    ['/uc/profile', true],
    ['//evil.example', false],
    ['/console\\evil', false],
    ['https://evil.example/console', false],
    ['/consoleevil', false],
    ['/api/v1alpha1/users', false],
    ['', false],
  ])('%j → %s', (path, expected) => {
    expect(isConsolePath(path)).toBe(expected);
  });
});

describe('readFlow', () => {
  it('reads the sign-in svc wrote', () => {
    expect(readFlow(cookieOf(flow))).toEqual(flow);
  });

  it.each([
    ['no cookie', undefined],
    ['another cookie only', 'other=1'],
    ['not base64 JSON', `${FLOW_COOKIE}=%%%`],
    ['an empty state', cookieOf({ ...flow, state: '' })],
    ['no verifier', cookieOf({ ...flow, verifier: undefined })],
    ['a start time that is not a number', cookieOf({ ...flow, startedAt: '1' })],
    ['a landing page off the console', cookieOf({ ...flow, returnTo: 'https://evil.example/' })],
    ['a protocol-relative landing page', cookieOf({ ...flow, returnTo: '//evil.example/console' })],
  ])('refuses %s', (_what, header) => {
    expect(readFlow(header)).toBeUndefined();
  });
});
