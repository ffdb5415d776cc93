import { describe, expect, it } from 'vitest';
import { cookieValue, Transport } from './http.js';

describe('the client in a browser (documentCookies)', () => {
  it.each([
    ['', 'XSRF-TOKEN', undefined],
    ['XSRF-TOKEN=abc', 'XSRF-TOKEN', 'abc'],
    ['a=1; XSRF-TOKEN=a%2Fb; c=3', 'XSRF-TOKEN', 'a/b'],
    ['MY-XSRF-TOKEN=no; b=2', 'XSRF-TOKEN', undefined],
    ['a=1;b=2', 'b', '2'],
  ])('reads cookie %j for %s', (cookies, name, expected) => {
    expect(cookieValue(cookies, name)).toBe(expected);
  });

  function recording(cookies: string) {
    const calls: { method: string; headers: Record<string, string>; credentials?: string }[] = [];
    const fetch = (async (_url: URL, init: RequestInit) => {
      calls.push({
        method: init.method!,
        headers: init.headers as Record<string, string>,
        credentials: init.credentials,
      });
      return new Response('{}', { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const transport = new Transport({ baseUrl: 'http://svc.test', fetch, documentCookies: () => cookies });
    return { calls, transport };
  }

  it('sends the browser session and echoes XSRF-TOKEN on unsafe requests only', async () => {
    const { calls, transport } = recording('session=s; XSRF-TOKEN=t1');
    await transport.send('GET', '/api/v1alpha1/users');
    await transport.send('POST', '/logout');
    expect(calls.map((c) => [c.method, c.credentials, c.headers['x-xsrf-token'], c.headers.cookie])).toEqual([
      ['GET', 'same-origin', undefined, undefined],
      ['POST', 'same-origin', 't1', undefined],
    ]);
  });

  it('leaves the session cookie to the browser on sign-in and signs out even with no stored session', async () => {
    const { calls, transport } = recording('');
    await transport.signIn('ada', 'pw');
    await transport.signOut();
    expect(calls.map((c) => [c.method, c.headers.cookie])).toEqual([
      ['POST', undefined],
      ['POST', undefined],
    ]);
  });

  it('sends no credentials mode outside a browser', async () => {
    const calls: RequestInit[] = [];
    const fetch = (async (_url: URL, init: RequestInit) => {
      calls.push(init);
      return new Response('{}', { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    await new Transport({ baseUrl: 'http://svc.test', fetch }).send('POST', '/x');
    expect(calls[0]!.credentials).toBeUndefined();
  });
});
