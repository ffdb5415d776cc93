/**
 * A backup that is not whole, or not what svc export wrote, or holds an object a create would refuse, is refused by
 * `svc import` as a whole (exit 1, naming what is wrong) and writes nothing: a server started on the target afterwards
 * finds none of the backup's objects, over HTTP, on SQLite and PostgreSQL.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { BackupDigest } from '../src/cli/backup-integrity.js';
import { CORE_MODELS } from '../src/main.js';
import { normalizeModelDefinition } from '../src/objects/model-definition.js';
import { ADMIN, login, userWithRoles } from './auth-harness.js';
import { BACKENDS, type Backend, PERSONS, PG_URL, person, startTestServer } from './harness.js';
import { svc } from './offline-cli.js';

const ROLES = '/api/v1alpha1/roles';
const SEPARATOR = Buffer.from('\n---\n');

/** The same documents as a file svc export would write: a new trailer, with the right counts and digest. */
function signedAgain(documents: any[]): Buffer {
  const digest = new BackupDigest();
  const text = documents.map((document) => digest.document(document)).join('');
  const restoring = documents.slice(1);
  const counts = {
    objects: restoring.filter((d) => !['SecretRecords', 'PluginCode'].includes(d.kind)).length,
    secretRecords: restoring
      .filter((d) => d.kind === 'SecretRecords')
      .reduce((n, d) => n + Object.keys(d.data).length, 0),
    plugins: restoring.filter((d) => d.kind === 'PluginCode').length,
  };
  return Buffer.from(text + digest.trailer(counts));
}

describe('svc import of a damaged backup', () => {
  let work: string;
  let backup: Buffer;
  /** The documents before the trailer, as values. */
  let documents: any[];

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'svc-backup-damage-'));
    const source = await startTestServer({ backend: 'sqlite' });
    try {
      const admin = await login(source, ADMIN.username, ADMIN.password);
      const role = {
        apiVersion: 'v1alpha1',
        kind: 'Role',
        metadata: { name: 'people-reader' },
        rules: [{ apiGroups: ['people.svc.run'], resources: ['persons'], verbs: ['get', 'list'] }],
      };
      expect((await source.request('POST', ROLES, role)).status).toBe(201);
      await userWithRoles(source, admin, 'alice', ['people-reader']);
      for (const name of ['ann', 'bob']) expect((await source.request('POST', PERSONS, person(name))).status).toBe(201);
      await source.server.close();
      const file = path.join(work, 'backup.yaml');
      const exported = await svc(['export', '--data-dir', source.dataDir, '-o', file]);
      expect(exported.code, exported.stderr).toBe(0);
      backup = await readFile(file);
      documents = parseAllDocuments(backup.toString('utf8'))
        .map((d) => d.toJS())
        .slice(0, -1);
      expect(documents.some((d) => d.kind === 'RoleBinding' && d.subjects?.[0]?.name === 'alice')).toBe(true);
    } finally {
      await rm(source.dataDir, { recursive: true, force: true });
    }
  }, 60_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  const bindingAt = () => documents.findIndex((d) => d.kind === 'RoleBinding' && d.subjects?.[0]?.name === 'alice');
  const personAt = (name: string) => documents.findIndex((d) => d.kind === 'Person' && d.metadata.name === name);

  const damaged: Array<{ name: string; file: () => Buffer; says: () => string }> = [
    {
      name: 'cut at 50%',
      file: () => backup.subarray(0, Math.floor(backup.length * 0.5)),
      says: () => 'it does not end with the trailer its header announces',
    },
    {
      name: 'cut at 90%',
      file: () => backup.subarray(0, Math.floor(backup.length * 0.9)),
      says: () => 'it does not end with the trailer its header announces',
    },
    {
      name: 'one byte flipped',
      file: () => {
        const flipped = Buffer.from(backup);
        const at = Math.floor(flipped.length / 3);
        flipped[at] = flipped[at]! ^ 0x01;
        return flipped;
      },
      says: () => 'it is damaged, or was changed after svc export wrote it: the SHA-256 of its',
    },
    {
      name: 'a record altered, its digest left alone',
      file: () => Buffer.from(backup.toString('utf8').replace('name: people-reader', 'name: people-writer')),
      says: () => 'it is damaged, or was changed after svc export wrote it',
    },
    {
      name: 'its trailer removed',
      file: () => backup.subarray(0, backup.lastIndexOf(SEPARATOR) + 1),
      says: () => 'it does not end with the trailer its header announces',
    },
    {
      name: 'objects a create would refuse, signed again',
      file: () =>
        signedAgain(
          documents.map((d, i) =>
            i === bindingAt()
              ? { ...d, roleRef: 'apiGr' }
              : i === personAt('bob')
                ? { ...d, metadata: { ...d.metadata, labels: { 'not a key!': 'x' } } }
                : d,
          ),
        ),
      // In the file's order: resources sorted, people.svc.run/persons before rolebindings.
      says: () =>
        `document ${personAt('bob') + 1} (Person "bob"): /metadata/labels/not a key!: key name must start and end ` +
        "with a letter or digit and contain only letters, digits, '-', '_' and '.'; " +
        `document ${bindingAt() + 1} (RoleBinding "${documents[bindingAt()].metadata.name}"): /roleRef: must be object\n`,
    },
    {
      name: 'an object given twice, signed again',
      file: () => signedAgain([...documents, documents[personAt('ann')]]),
      says: () =>
        `document ${documents.length + 1}: people.svc.run/persons "ann" is given twice (document ${personAt('ann') + 1} too)`,
    },
  ];

  describe.each(BACKENDS)('into an empty %s store', (backend: Backend) => {
    it.each(damaged)('$name: exit 1 naming the problem, and nothing written', async ({ file, says }) => {
      const target = await mkdtemp(path.join(work, `${backend}-`));
      const dataDir = path.join(target, 'data');
      const schema = `t_damage_${Math.random().toString(36).slice(2, 8)}`;
      const env: Record<string, string> =
        backend === 'postgres' ? { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema } : {};
      const input = path.join(target, 'backup.yaml');
      await writeFile(input, file());

      const imported = await svc(['import', '--data-dir', dataDir, '-f', input], { env });
      expect(imported.stderr).toContain(`svc import: ${input} is refused, and nothing was written: ${says()}`);
      expect(imported.code).toBe(1);

      // A server on the target: a first boot on an empty store, holding nothing of the backup.
      const t = await startTestServer({ backend, schema, env: { SVC_DATA_DIR: dataDir } });
      try {
        for (const url of [`${PERSONS}/ann`, `${PERSONS}/bob`, `${ROLES}/people-reader`]) {
          expect((await t.request('GET', url)).status, url).toBe(404);
        }
        const users = await t.request('GET', '/api/v1alpha1/users');
        expect(users.body.items.map((u: any) => u.metadata.name)).toEqual(['admin']);
      } finally {
        await t.close();
        await rm(target, { recursive: true, force: true });
      }
    });
  });

  it('refuses a backup of an older svc (no trailer) unless --unverified, which restores it with a warning', async () => {
    const [header, ...rest] = documents;
    const { integrity: _none, ...olderHeader } = header;
    const older = Buffer.from([olderHeader, ...rest].map((d) => new BackupDigest().document(d)).join(''), 'utf8');
    const input = path.join(work, 'older.yaml');
    await writeFile(input, older);
    const dataDir = path.join(work, 'older-target');
    const refused = await svc(['import', '--data-dir', dataDir, '-f', input]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `svc import: ${input} is refused, and nothing was written: it has no trailer: an older svc wrote it, so ` +
        'nothing tells whether it is whole or was cut short. Export it again with this svc if its source still ' +
        'exists; if you know the file is whole, import it with --unverified',
    );
    const accepted = await svc(['import', '--data-dir', dataDir, '-f', input, '--unverified']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain(
      `svc import: warning: ${input} has no trailer: imported without knowing whether it is whole`,
    );
    const t = await startTestServer({ backend: 'sqlite', credentials: 'none', env: { SVC_DATA_DIR: dataDir } });
    try {
      const alice = await login(t, 'alice', 'alice-password-123');
      const ann = await t.anonymous('GET', `${PERSONS}/ann`, undefined, alice.headers);
      expect(ann.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('knows every model a server registers itself, whose objects it checks fully', async () => {
    const t = await startTestServer({ pluginsDirs: [] });
    try {
      const registered = t.server.registry
        .all()
        .filter((served) => served.model.owner.kind === 'system')
        .map((served) => served.model.resource);
      const checked = CORE_MODELS.map((model) => normalizeModelDefinition(model, { kind: 'system' }).resource);
      expect(checked.sort()).toEqual(registered.sort());
      expect(checked).toContain('rolebindings');
    } finally {
      await t.close();
    }
  });
});
