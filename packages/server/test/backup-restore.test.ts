import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ADMIN, as, CONSOLE, login, userWithRoles } from './auth-harness.js';
import { PERSONS, PG_URL, peopleSettled, person, startTestServer, type TestServer } from './harness.js';
import { svc } from './offline-cli.js';

const OWN_TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';

/** The URL an object is served at, from its store resource (`<group>/<plural>`) and its apiVersion. */
function urlOf(resource: string, object: { apiVersion: string; metadata: { name: string } }): string {
  const plural = resource.split('/').pop()!;
  const root = object.apiVersion.includes('/') ? '/apis' : '/api';
  return `${root}/${object.apiVersion}/${plural}/${encodeURIComponent(object.metadata.name)}`;
}

/** What the import reproduces: the object without metadata.resourceVersion (renumbered, as documented). */
function reproduced(object: any) {
  const { resourceVersion: _renumbered, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/**
 * Issue 15's "done" line for the CLI: a server on SQLite with the people plugin, objects made over HTTP; `svc export`
 * from its data directory, `svc import` into an empty PostgreSQL schema, a server on that schema serves every object
 * as it was, a user signs in with their password and a token still works.
 */
describe('svc export, then svc import into PostgreSQL', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('reproduces every object, and passwords and tokens still work', async () => {
    // HTTPS on: the source makes its CA under its data dir, which the backup carries.
    const source = await startTestServer({ backend: 'sqlite', env: { SVC_HTTPS_PORT: '0' } });
    await source.server.listen();
    cleanups.push(() => rm(source.dataDir, { recursive: true, force: true }));
    const admin = await login(source, ADMIN.username, ADMIN.password);
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'people-reader', labels: { team: 'a' }, annotations: { why: 'a test' } },
      rules: [{ apiGroups: ['people.svc.run'], resources: ['persons'], verbs: ['get', 'list'] }],
    };
    expect((await source.request('POST', ROLES, role)).status).toBe(201);
    const alice = await userWithRoles(source, admin, 'alice', ['editor', 'people-reader']);
    for (const name of ['ann', 'bob', 'cy']) {
      expect((await source.request('POST', PERSONS, person(name, {}, { city: 'paris' }))).status).toBe(201);
    }
    await peopleSettled(source);
    const token = await as(source, alice)('POST', OWN_TOKENS, { spec: { name: 'ci', roles: ['people-reader'] } });
    expect(token.status).toBe(201);
    const secret = token.body.metadata.annotations['security.svc.run/access-token'] as string;
    const adminToken = await as(source, admin)('POST', OWN_TOKENS, {
      spec: {
        name: 'backup check',
        roles: (await as(source, admin)('GET', `${CONSOLE}/users/-/permissions`)).body.roles.filter(
          (r: string) => r !== 'anonymous' && r !== 'authenticated',
        ),
      },
    });
    expect(adminToken.status).toBe(201);
    const adminSecret = adminToken.body.metadata.annotations['security.svc.run/access-token'] as string;
    expect((await source.request('GET', BINDINGS)).body.items.length).toBeGreaterThan(0);
    // Every stored object, read from the store once the server has stopped writing.
    await source.server.close();
    const { openStore } = await import('../src/store/open-store.js');
    const store = await openStore({ dataDir: source.dataDir, create: false });
    const sourceRevision = await store.currentRevision();
    const expected: Array<{ resource: string; object: any }> = [];
    for (const resource of await store.resources())
      for await (const batch of store.scan(resource))
        for (const record of batch) expected.push({ resource, object: JSON.parse(record.value.toString()) });
    await store.close();
    for (const kind of ['User', 'Role', 'RoleBinding', 'Person', 'PersonalAccessToken', 'Plugin']) {
      expect(
        expected.some((e) => e.object.kind === kind),
        kind,
      ).toBe(true);
    }

    const work = await mkdtemp(path.join(tmpdir(), 'svc-backup-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    const backup = path.join(work, 'backup.yaml');
    const exported = await svc(['export', '--data-dir', source.dataDir, '-o', backup]);
    expect(exported.stderr).toContain('the backup holds password hashes');
    expect(exported.code).toBe(0);
    const documents = parseAllDocuments(await readFile(backup, 'utf8')) as any[];
    // The header, the objects, two kinds of secret records, the TLS CA, and the trailer that checks them all.
    expect(documents.length).toBe(1 + expected.length + 2 + 1 + 1);
    expect(documents.map((d) => d.toJS().kind).filter((k) => k === 'SecretRecords')).toHaveLength(2);
    expect(documents.at(-2).toJS().kind).toBe('CertificateAuthority');
    expect(documents.at(-1).toJS()).toMatchObject({
      kind: 'BackupTrailer',
      documents: 1 + expected.length + 2 + 1,
      objects: expected.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const schema = `t_import_${Math.random().toString(36).slice(2, 8)}`;
    const targetDir = path.join(work, 'target-data');
    const env = { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema };
    const imported = await svc(['import', '--data-dir', targetDir, '-f', backup], { env });
    expect(imported.stderr).toContain(`${expected.length} objects`);
    expect(imported.code).toBe(0);
    // A second import finds the store full and changes nothing.
    const again = await svc(['import', '--data-dir', targetDir, '-f', backup], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty: it holds objects of \d+ resources/);

    // What the import wrote, read from the store before any server touches it: every object exactly as exported,
    // with only its resourceVersion renumbered.
    const restoredStore = await openStore({ dataDir: targetDir, databaseUrl: PG_URL, schema, create: false });
    const restored = new Map<string, any>();
    for (const resource of await restoredStore.resources())
      for await (const batch of restoredStore.scan(resource))
        for (const record of batch) restored.set(`${resource} ${record.name}`, JSON.parse(record.value.toString()));
    await restoredStore.close();
    expect(restored.size).toBe(expected.length);
    for (const { resource, object } of expected) {
      const key = `${resource} ${object.metadata.name}`;
      expect(reproduced(restored.get(key)), key).toEqual(reproduced(object));
      // Renumbered after the source's revisions, so none is reused.
      expect(Number(restored.get(key).metadata.resourceVersion), key).toBeGreaterThan(sourceRevision);
    }

    // The CA clients trusted is the restored server's: its new server certificate is signed by it.
    const sourceCa = await readFile(path.join(source.dataDir, 'tls/ca.crt'), 'utf8');
    expect(imported.stderr).toContain(', the TLS CA and');
    expect(await readFile(path.join(targetDir, 'tls/ca.crt'), 'utf8')).toBe(sourceCa);
    expect((await stat(path.join(targetDir, 'tls/ca.key'))).mode & 0o777).toBe(0o600);

    const target: TestServer = await startTestServer({
      backend: 'postgres',
      schema,
      credentials: 'none',
      env: { SVC_DATA_DIR: targetDir, SVC_HTTPS_PORT: '0' },
    });
    cleanups.push(() => target.close());
    await target.server.listen();
    expect(target.server.caFile).toBe(path.join(targetDir, 'tls/ca.crt'));
    const served = new X509Certificate(await readFile(path.join(targetDir, 'tls/server.crt')));
    expect(served.verify(new X509Certificate(sourceCa).publicKey)).toBe(true);
    // Over HTTP, with a token made before the export: every object is served as it was. A server's own boot may
    // write some again (a plugin re-applies the objects it declares, and its controller takes them up; Plugin
    // objects record the start): those keep their identity and spec.
    const withToken = { authorization: `Bearer ${adminSecret}` };
    const rewrittenAtBoot: string[] = [];
    for (const { resource, object } of expected) {
      const url = urlOf(resource, object);
      const served = await target.anonymous('GET', url, undefined, withToken);
      expect(served.status, url).toBe(200);
      if (served.body.metadata.version === object.metadata.version) {
        expect(reproduced(served.body), url).toEqual(reproduced(object));
        continue;
      }
      rewrittenAtBoot.push(`${object.kind} ${object.metadata.name}`);
      for (const field of ['uid', 'creationTimestamp', 'labels'])
        expect(served.body.metadata[field], `${url} ${field}`).toEqual(object.metadata[field]);
      expect(served.body.spec, url).toEqual(object.spec);
    }
    // Declared by a plugin, a Plugin object, or the token these reads used (it records its last use).
    const byTheServer = (object: any) =>
      object.kind === 'Plugin' ||
      object.metadata.labels?.['plugin.svc.run/plugin-name'] !== undefined ||
      object.metadata.name === adminToken.body.metadata.name;
    const rewrittenOthers = rewrittenAtBoot.filter((what) => {
      const [kind, name] = what.split(' ');
      return !byTheServer(expected.find((e) => e.object.kind === kind && e.object.metadata.name === name)!.object);
    });
    expect(rewrittenOthers).toEqual([]);
    // alice signs in with her password, and her token still works.
    const aliceAgain = await login(target, 'alice', 'alice-password-123');
    expect((await as(target, aliceAgain)('GET', PERSONS)).status).toBe(200);
    const byToken = await target.anonymous('GET', PERSONS, undefined, { authorization: `Bearer ${secret}` });
    expect(byToken.status).toBe(200);
    expect(byToken.body.items.map((p: any) => p.metadata.name).sort()).toEqual([
      'ada',
      'alan',
      'ann',
      'bob',
      'cy',
      'grace',
    ]);
  }, 120_000);
});
