import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Audit, auditRef } from '../src/audit/module.js';
import { BACKENDS, PERSONS, person, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

const EVENTS = '/apis/audit.svc.run/v1alpha1/events';
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';

/**
 * The audit log (docs/access-control.md "Audit"), over HTTP on both stores: events in Kubernetes' shape, field by
 * field, the default policy, filters and pages, who may read them, and no secret in any sink.
 */
describe.each(BACKENDS)('the audit log (%s)', (backend) => {
  let t: TestServer;
  let file: string;
  let audit: Audit;
  const events = async (query = '') => {
    await audit.flush();
    const answer = await t.request('GET', `${EVENTS}${query}`);
    expect(answer.status).toBe(200);
    return answer.body.items as Array<Record<string, any>>;
  };

  beforeAll(async () => {
    file = path.join(await mkdtemp(path.join(tmpdir(), 'svc-audit-')), 'audit.log');
    t = await startTestServer({ backend, env: { SVC_AUDIT_LOG: file } });
    audit = t.server.modules.get(auditRef);
  }, 60_000);
  afterAll(() => t.close());

  it('records a create at Metadata, field by field, and no read', async () => {
    const created = await t.request('POST', PERSONS, person('audited'), {
      'user-agent': 'audit-test/1',
      'x-request-id': 'req-audit-1',
    });
    expect(created.status).toBe(201);
    expect((await t.request('GET', `${PERSONS}/audited`)).status).toBe(200);
    const [event, ...rest] = await events('?resource=persons&name=audited');
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'req-audit-1',
      stage: 'ResponseComplete',
      requestURI: PERSONS,
      verb: 'create',
      user: { username: TEST_ADMIN.username, groups: ['system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1',
      objectRef: { resource: 'persons', name: 'audited', apiGroup: 'people.svc.run', apiVersion: 'v1alpha1' },
      responseStatus: { metadata: {}, code: 201 },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(event!.requestObject).toBeUndefined();
    expect(Date.parse(event!.stageTimestamp)).toBeGreaterThanOrEqual(Date.parse(event!.requestReceivedTimestamp));
  });

  it('records a failed sign-in with the username tried, and a sign-in that worked', async () => {
    expect((await t.anonymous('POST', '/login', { username: 'mallory', password: 'not-the-password' })).status).toBe(
      401,
    );
    expect(
      (await t.anonymous('POST', '/login', { username: TEST_ADMIN.username, password: TEST_ADMIN.password })).status,
    ).toBe(200);
    const logins = (await events('?verb=post')).filter((e) => e.requestURI === '/login').slice(0, 2);
    expect(
      logins.map((e) => [e.user.username, e.responseStatus.code, e.annotations['authentication.svc.run/username']]),
    ).toEqual([
      ['system:anonymous', 200, TEST_ADMIN.username],
      ['system:anonymous', 401, 'mallory'],
    ]);
  });

  it('filters by user, verb, resource, name and time, and pages with continue', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      expect((await t.request('POST', PERSONS, person(name))).status).toBe(201);
    await audit.flush();
    const first = await t.request('GET', `${EVENTS}?resource=persons&verb=create&limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.metadata.continue).toEqual(expect.any(String));
    const second = await t.request(
      'GET',
      `${EVENTS}?resource=persons&verb=create&limit=2&continue=${first.body.metadata.continue}`,
    );
    // Newest first: the two pages hold the four creates, each once.
    const names = [...first.body.items, ...second.body.items].map((e: any) => e.objectRef.name);
    expect(names).toEqual(['page-c', 'page-b', 'page-a', 'audited']);
    expect(second.body.metadata.continue).toBeUndefined();
    expect(await events(`?user=nobody`)).toEqual([]);
    expect(await events(`?since=2100-01-01T00:00:00Z`)).toEqual([]);
    const bad = await t.request('GET', `${EVENTS}?since=yesterday`);
    expect([bad.status, bad.body.detail]).toEqual([
      400,
      'the query parameter since must be an RFC 3339 time such as 2026-11-26T10:00:00Z, not "yesterday"',
    ]);
  });

  it('keeps passwords and tokens out of every sink, even at RequestResponse', async () => {
    const token = await t.request('POST', TOKENS, { spec: { name: 'audited-token', roles: [] } });
    expect(token.status).toBe(201);
    const secret = token.body.metadata.annotations['security.svc.run/access-token'] as string;
    await t.anonymous('POST', '/login', { username: TEST_ADMIN.username, password: TEST_ADMIN.password });
    await audit.flush();
    const stored = JSON.stringify(await events('?limit=1000'));
    const logged = await readFile(file, 'utf8');
    for (const text of [stored, logged]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(TEST_ADMIN.password);
    }
    expect(
      logged
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).kind),
    ).toContain('Event');
  });

  it('is readable only by those a role allows', async () => {
    expect((await t.anonymous('GET', EVENTS)).status).toBe(401);
  });
});

describe('an audit policy file', () => {
  it('records at RequestResponse what it names, with secrets redacted, and nothing else', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-audit-policy-'));
    const policy = path.join(dir, 'policy.yaml');
    await writeFile(
      policy,
      `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: RequestResponse
    resources: [{group: "uc.api.security.svc.run", resources: ["personalaccesstokens"]}]
  - level: None
`,
    );
    const t = await startTestServer({ env: { SVC_AUDIT_POLICY: policy } });
    try {
      const audit = t.server.modules.get(auditRef);
      expect((await t.request('POST', PERSONS, person('not-audited'))).status).toBe(201);
      const token = await t.request('POST', TOKENS, { spec: { name: 'full', roles: [] } });
      const secret = token.body.metadata.annotations['security.svc.run/access-token'] as string;
      await audit.flush();
      const { items } = (await t.request('GET', EVENTS)).body;
      expect(items.map((e: any) => [e.level, e.objectRef.resource])).toEqual([
        ['RequestResponse', 'personalaccesstokens'],
      ]);
      expect(items[0].requestObject).toEqual({ spec: { name: 'full', roles: [] } });
      expect(items[0].responseObject.metadata.annotations['security.svc.run/access-token']).toBe('******');
      expect(JSON.stringify(items)).not.toContain(secret);
    } finally {
      await t.close();
    }
  });
});
