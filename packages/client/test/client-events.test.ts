/** `client.events`: a custom route's newline-delimited JSON events, against a real listening svc. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN, type TestServer } from '../../server/test/harness.js';
import { SvcApiError, SvcClient } from '../src/index.js';

const EVENTS = '/apis/api.console.svc.run/v1alpha1/users/-/console-events';

describe('client.events', () => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer({ credentials: 'none' });
    base = await t.server.listen();
  }, 60_000);
  afterAll(() => t?.close());

  it('yields the events, and throws the 401 of an ERROR event when the session ends', async () => {
    const client = new SvcClient({ baseUrl: base });
    await client.signIn(TEST_ADMIN.username, TEST_ADMIN.password);
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const event of client.events<{ type: string; uiPermissions?: string[] }>(EVENTS)) {
        seen.push(`${event.type} ${event.uiPermissions?.join(',')}`);
        if (event.type === 'READY') await t.server.authn.endSessionsOf(TEST_ADMIN.username);
      }
    } catch (error) {
      failure = error;
    }
    expect(seen).toEqual(['READY *']);
    expect(failure).toBeInstanceOf(SvcApiError);
    expect((failure as SvcApiError).status).toBe(401);
  });

  it('ends quietly when closed', async () => {
    const client = new SvcClient({ baseUrl: base });
    await client.signIn(TEST_ADMIN.username, TEST_ADMIN.password);
    const stream = client.events<{ type: string }>(EVENTS);
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      stream.close();
    }
    expect(types).toEqual(['READY']);
  });
});
