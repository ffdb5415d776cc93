import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONS, person, startTestServer, type TestServer } from './harness.js';

/** JSON answers over 1 KiB go compressed to a client that asks (docs/api.md "Compression"); nothing else changes. */
describe('compression of answers', () => {
  let t: TestServer;
  const get = (url: string, encoding: string) =>
    t.server.app.inject({ method: 'GET', url, headers: { ...t.adminHeaders, 'accept-encoding': encoding } });

  beforeAll(async () => {
    t = await startTestServer();
    for (let i = 0; i < 30; i++) expect((await t.request('POST', PERSONS, person(`p${i}`))).status).toBe(201);
  }, 60_000);
  afterAll(() => t.close());

  it('compresses a page of persons with br or gzip, as the client asks, to the same JSON', async () => {
    const plain = await get(`${PERSONS}?size=20`, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(5_000);
    const expected = JSON.parse(plain.body).items.map((p: { metadata: { name: string } }) => p.metadata.name);
    const cases: Array<[string, string, (b: Buffer) => Buffer]> = [
      ['gzip', 'gzip', gunzipSync],
      ['br', 'br', brotliDecompressSync],
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['br;q=0, gzip', 'gzip', gunzipSync],
      ['gzip;q=0.5, br;q=0.4', 'gzip', gunzipSync],
      ['*', 'br', brotliDecompressSync],
    ];
    for (const [accept, chosen, inflate] of cases) {
      const answer = await get(`${PERSONS}?size=20`, accept);
      expect(answer.headers['content-encoding'], accept).toBe(chosen);
      expect(answer.headers.vary).toContain('accept-encoding');
      expect(answer.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      const items = JSON.parse(inflate(answer.rawPayload).toString()).items;
      expect(items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(expected);
    }
  });

  it('sends the JSON as it is to a client that accepts none of br and gzip, saying that it varies', async () => {
    for (const accept of ['deflate', 'br;q=0, gzip;q=0', 'identity']) {
      const answer = await get(`${PERSONS}?size=20`, accept);
      expect(answer.headers['content-encoding'], accept).toBeUndefined();
      expect(answer.headers.vary, accept).toContain('accept-encoding');
      expect(JSON.parse(answer.body).items).toHaveLength(20);
    }
  });

  it('leaves answers under 1 KiB, and problems, as they are', async () => {
    const one = await get(`${PERSONS}/p1`, 'gzip, br');
    expect(one.statusCode).toBe(200);
    expect(one.headers['content-encoding']).toBeUndefined();
    const missing = await get(`${PERSONS}/nobody`, 'gzip, br');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
  });

  it('does not inflate a compressed request body: it is refused, not read', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(JSON.stringify(person('zipped')));
    const answer = await t.server.app.inject({
      method: 'POST',
      url: PERSONS,
      payload: body,
      headers: { ...t.adminHeaders, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(answer.statusCode).toBeGreaterThanOrEqual(400);
    expect(answer.statusCode).toBeLessThan(500);
    expect((await t.request('GET', `${PERSONS}/zipped`)).status).toBe(404);
  });
});
