/** The client over svc's HTTPS listener: trusting svc's own CA with `ca`, and refusing a server it cannot verify. */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, superAdminToken, type TestServer } from '../../server/test/harness.js';
import { SvcClient, SvcConnectionError } from '../src/index.js';

const PERSONS_REF = { group: 'people.svc.run', version: 'v1alpha1', plural: 'persons' };

describe('the TypeScript client over HTTPS', () => {
  let t: TestServer;
  let token: string;
  const clients: SvcClient[] = [];
  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_HTTPS_PORT: '0' } });
    await t.server.listen();
    token = await superAdminToken(t, 'https-test');
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });

  it('trusts the CA it is given, and watches over TLS', async () => {
    const ca = await readFile(t.server.caFile!, 'utf8');
    const client = new SvcClient({ baseUrl: t.server.httpsUrl!, token, ca });
    clients.push(client);
    const persons = client.resource(PERSONS_REF);
    const listed = await persons.list({ sort: 'metadata.name,asc' });
    expect(listed.items.map((p) => p.metadata.name)).toEqual(['ada', 'alan', 'grace']);
    const watch = persons.watch({ labelSelector: 'people.svc.run/team=engines' });
    for await (const event of watch) {
      expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'ada' } } });
      break;
    }
  });

  it('refuses a server whose certificate it cannot verify, as a connection error', async () => {
    const client = new SvcClient({ baseUrl: t.server.httpsUrl!, token });
    const error = await client
      .resource(PERSONS_REF)
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcConnectionError);
    expect((error as Error).message).toMatch(/^cannot reach https:\/\/127\.0\.0\.1:\d+: /);
  });
});
