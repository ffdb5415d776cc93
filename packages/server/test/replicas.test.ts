/**
 * Several replicas on one PostgreSQL database, as users run them: `svc serve` processes with their own data
 * directories and one SVC_DATABASE_URL and schema, talked to over HTTP (docs: README "Running several replicas").
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { PERSONS, person, roleBinding } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';
import { call, leaderOf, type Replica, type ReplicaSet, replicaSet, signIn } from './replica-harness.js';
import { NOTES, NOTES_PLUGINS, summary, watchHttp } from './watch-client.js';

const CONSOLE = '/apis/api.console.svc.run/v1alpha1';
const BINDINGS = '/api/v1alpha1/rolebindings';
const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const PLUGINS = '/apis/api.console.svc.run/v1alpha1/plugins';
const PLUGIN_OBJECT = '/apis/plugin.svc.run/v1alpha1/plugins/people';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('three replicas started one after another', () => {
  let set: ReplicaSet;
  let a: Replica;
  let b: Replica;
  let c: Replica;
  let admin: Record<string, string>;

  beforeAll(async () => {
    set = await replicaSet('seq');
    a = await set.start('a');
    b = await set.start('b');
    c = await set.start('c');
    admin = await signIn(a);
  }, 120_000);
  afterAll(() => set?.close(), 60_000);

  it('are ready, and the first one leads', async () => {
    for (const replica of [a, b, c]) expect((await replica.fetch('/readyz')).status).toBe(200);
    expect(await leaderOf(set.schema)).toEqual({ holder: 'a', epoch: 1 });
  });

  it('list a write made on another through its index, and deliver it to their watches', async () => {
    const onB = watchHttp(b.url, `${PERSONS}?watch=true&labelSelector=test=index`, { headers: admin });
    const onC = watchHttp(c.url, `${PERSONS}?watch=true&labelSelector=test=index`, { headers: admin });
    await Promise.all([onB.response, onC.response]);
    const created = await call(
      a,
      'POST',
      PERSONS,
      admin,
      person('ada-replica', { name: 'Ada Replica' }, { test: 'index' }),
    );
    expect(created.status).toBe(201);
    for (const replica of [b, c]) {
      await eventually(async () => {
        const list = await call(replica, 'GET', `${PERSONS}?fieldSelector=spec.name=Ada%20Replica`, admin);
        return list.body.total === 1 && list.body.items[0].metadata.name === 'ada-replica';
      }, `the index on ${replica.id}`);
    }
    for (const watch of [onB, onC]) {
      await watch.until((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'ada-replica'));
      expect(summary(watch.events)[0]).toEqual(['ADDED', 'ada-replica', Number(created.body.metadata.resourceVersion)]);
      watch.close();
    }
  });

  it('honour a token, a sign-out, a new user and a role given on another', async () => {
    // A token made on a works on b.
    const made = await call(a, 'POST', TOKENS, admin, { spec: { name: 'replicated', roles: ['super-role'] } });
    expect(made.status).toBe(201);
    const token = made.body.metadata.annotations['security.svc.run/access-token'] as string;
    await eventually(async () => (await call(b, 'GET', PERSONS, bearer(token))).status === 200, 'the token on b');

    // A session from a works on c until it signs out on a.
    const session = await signIn(a);
    expect((await call(c, 'GET', PERSONS, session)).status).toBe(200);
    expect((await call(a, 'POST', '/logout', session)).status).toBeLessThan(300);
    await eventually(async () => (await call(c, 'GET', PERSONS, session)).status === 401, 'the sign-out on c');

    // A user created on b signs in on c; a role bound through b lets them list persons on a.
    expect(
      (await call(b, 'POST', `${CONSOLE}/users`, admin, { name: 'rita', password: 'rita-password-1' })).status,
    ).toBe(201);
    let rita: Record<string, string> = {};
    await eventually(async () => {
      rita = await signIn(c, { username: 'rita', password: 'rita-password-1' }).catch(() => ({}));
      return 'cookie' in rita;
    }, 'rita signing in on c');
    expect((await call(a, 'GET', PERSONS, rita)).status).toBe(403);
    const binding = roleBinding('rita-views-persons', 'people-role-view-persons', { users: ['rita'] });
    expect((await call(b, 'POST', BINDINGS, admin, binding)).status).toBe(201);
    await eventually(async () => (await call(a, 'GET', PERSONS, rita)).status === 200, 'the role on a');
  });

  it('give exactly one 201 to 100 concurrent creates of one unique spec.name spread over the three', async () => {
    const replicas = [a, b, c];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(replicas[i % 3]!, 'POST', PERSONS, admin, person(`twin-${i}`, { name: 'The One Name' })),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(99);
    for (const replica of replicas) {
      await eventually(async () => {
        const list = await call(replica, 'GET', `${PERSONS}?fieldSelector=spec.name=The%20One%20Name`, admin);
        return list.body.total === 1;
      }, `one holder on ${replica.id}`);
    }
  });

  it('stop a plugin disabled through one on all three, and start it again on all three', async () => {
    expect((await call(a, 'PUT', `${PLUGINS}/people/plugin-state`, admin, { enable: false })).status).toBe(200);
    for (const replica of [a, b, c]) {
      await eventually(
        async () => (await call(replica, 'GET', PERSONS, admin)).status === 404,
        `stopped on ${replica.id}`,
      );
    }
    expect((await call(c, 'PUT', `${PLUGINS}/people/plugin-state`, admin, { enable: true })).status).toBe(200);
    for (const replica of [a, b, c]) {
      await eventually(
        async () => (await call(replica, 'GET', PERSONS, admin)).status === 200,
        `started on ${replica.id}`,
      );
    }
    await eventually(async () => {
      const plugin = await call(b, 'GET', PLUGIN_OBJECT, admin);
      return (
        JSON.stringify(plugin.body.status?.replicas) ===
        JSON.stringify([
          { name: 'a', phase: 'STARTED', version: '1.0.0' },
          { name: 'b', phase: 'STARTED', version: '1.0.0' },
          { name: 'c', phase: 'STARTED', version: '1.0.0' },
        ])
      );
    }, 'each replica reporting STARTED');
  });

  it('run a plugin uploaded through one on all three, and uninstall it from all three', async () => {
    const { body, headers } = multipart(await tgzOf(path.join(NOTES_PLUGINS, 'notes')));
    const installed = await b.fetch(`${PLUGINS}/install`, { method: 'POST', headers: { ...admin, ...headers }, body });
    expect(installed.status).toBe(201);
    expect((await call(b, 'PUT', `${PLUGINS}/notes/plugin-state`, admin, { enable: true })).status).toBe(200);
    for (const replica of [a, b, c]) {
      await eventually(async () => (await call(replica, 'GET', NOTES, admin)).status === 200, `notes on ${replica.id}`);
    }
    await eventually(async () => {
      const plugin = await call(a, 'GET', '/apis/plugin.svc.run/v1alpha1/plugins/notes', admin);
      return (
        (plugin.body.status?.replicas ?? []).map((r: any) => `${r.name}:${r.phase}`).join() ===
        'a:STARTED,b:STARTED,c:STARTED'
      );
    }, 'each replica reporting notes STARTED');
    expect((await call(c, 'DELETE', '/apis/plugin.svc.run/v1alpha1/plugins/notes', admin)).status).toBeLessThan(300);
    for (const replica of [a, b, c]) {
      await eventually(
        async () => (await call(replica, 'GET', NOTES, admin)).status === 404,
        `notes gone on ${replica.id}`,
      );
    }
  });

  it('run the new code of a plugin upgraded through one on all three', async () => {
    const NOTE_PLUGIN = '/apis/plugin.svc.run/v1alpha1/plugins/notes';
    const upload = async (replica: Replica, url: string, folder: string) => {
      const { body, headers } = multipart(await tgzOf(folder));
      return replica.fetch(url, { method: 'POST', headers: { ...admin, ...headers }, body });
    };
    const everyReplicaRuns = async (digest: string) =>
      eventually(async () => {
        const plugin = await call(a, 'GET', NOTE_PLUGIN, admin);
        const reports = (plugin.body.status?.replicas ?? []) as Array<{
          name: string;
          phase: string;
          archiveDigest?: string;
        }>;
        return (
          reports.map((r) => `${r.name}:${r.phase}:${r.archiveDigest === digest}`).join() ===
          'a:STARTED:true,b:STARTED:true,c:STARTED:true'
        );
      }, `each replica running ${digest}`);
    // Uninstalled by the test before: the object goes once every replica has let go.
    await eventually(async () => (await call(a, 'GET', NOTE_PLUGIN, admin)).status === 404, 'notes uninstalled');
    expect((await upload(a, `${PLUGINS}/install`, path.join(NOTES_PLUGINS, 'notes'))).status).toBe(201);
    const enabled = await call(a, 'PUT', `${PLUGINS}/notes/plugin-state`, admin, { enable: true });
    expect(enabled.status).toBe(200);
    await everyReplicaRuns(enabled.body.spec.archiveDigest);

    const scratch = await mkdtemp(path.join(tmpdir(), 'svc-notes-'));
    const v2 = path.join(scratch, 'notes');
    await cp(path.join(NOTES_PLUGINS, 'notes'), v2, { recursive: true });
    const manifest = await readFile(path.join(v2, 'plugin.yaml'), 'utf8');
    await writeFile(path.join(v2, 'plugin.yaml'), manifest.replace('version: 1.0.0', 'version: 1.1.0'));
    const upgraded = await upload(b, `${PLUGINS}/notes/upgrade`, v2);
    expect(upgraded.status).toBe(200);
    const plugin = (await upgraded.json()) as { spec: { version: string; archiveDigest: string } };
    expect(plugin.spec.version).toBe('1.1.0');
    expect(plugin.spec.archiveDigest).not.toBe(enabled.body.spec.archiveDigest);
    await everyReplicaRuns(plugin.spec.archiveDigest);
    expect((await call(c, 'DELETE', NOTE_PLUGIN, admin)).status).toBeLessThan(300);
    await eventually(async () => (await call(a, 'GET', NOTE_PLUGIN, admin)).status === 404, 'notes uninstalled');
    await rm(scratch, { recursive: true, force: true });
  });

  it('resume a watch moved from a dead replica to another without gap or duplicate', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `mover-${String(i).padStart(2, '0')}`);
    const first = watchHttp(c.url, `${PERSONS}?watch=true&labelSelector=test=move`, { headers: admin });
    await first.response;
    for (const name of names.slice(0, 15)) {
      expect((await call(b, 'POST', PERSONS, admin, person(name, {}, { test: 'move' }))).status).toBe(201);
    }
    await first.until((events) => events.length >= 10, 'ten events on c');
    await c.kill();
    const seen = first.events.filter((e) => e.type === 'ADDED');
    const resumeFrom = seen[seen.length - 1]!.object.metadata.resourceVersion as string;
    const writing = (async () => {
      for (const name of names.slice(15)) await call(b, 'POST', PERSONS, admin, person(name, {}, { test: 'move' }));
    })();
    const second = watchHttp(a.url, `${PERSONS}?watch=true&labelSelector=test=move&resourceVersion=${resumeFrom}`, {
      headers: admin,
    });
    await writing;
    const received = () =>
      [...seen, ...second.events.filter((e) => e.type === 'ADDED')].map((e) => e.object.metadata.name);
    await eventually(() => received().length >= names.length, 'all thirty through both watches');
    second.close();
    expect(received()).toEqual(names);
  });

  it('hand the controllers to another replica when the leader is killed', async () => {
    const before = (await leaderOf(set.schema))!;
    const leader = set.replicas.find((replica) => replica.id === before.holder)!;
    await leader.kill();
    const alive = [a, b, c].filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
    await eventually(async () => {
      const now = await leaderOf(set.schema);
      return now !== undefined && now.epoch > before.epoch && alive.some((replica) => replica.id === now.holder);
    }, 'a new leader');
    // The people controller runs on the new leader: a person created now gets its status filled.
    const survivor = alive[0]!;
    expect((await call(survivor, 'POST', PERSONS, admin, person('after-handover', { age: 70 }))).status).toBe(201);
    await eventually(async () => {
      const read = await call(survivor, 'GET', `${PERSONS}/after-handover`, admin);
      return read.body.status?.ageGroup === 'senior';
    }, 'status filled by the new leader');
  });
});

describe('three replicas started all at once on an empty database', () => {
  let set: ReplicaSet;

  beforeAll(async () => {
    set = await replicaSet('together');
    await Promise.all(['x', 'y', 'z'].map((id) => set.start(id)));
  }, 120_000);
  afterAll(() => set?.close(), 60_000);

  it('boot one administrator, one set of role templates, and the people plugin on each', async () => {
    const [x, y, z] = set.replicas;
    const admin = await signIn(x!);
    for (const replica of [x!, y!, z!]) {
      expect((await replica.fetch('/readyz')).status).toBe(200);
      expect((await call(replica, 'GET', PERSONS, admin)).status).toBe(200);
    }
    const users = await call(y!, 'GET', '/api/v1alpha1/users', admin);
    expect(users.body.items.map((user: any) => user.metadata.name)).toEqual(['admin']);
    const roles = await call(z!, 'GET', '/api/v1alpha1/roles?labelSelector=plugin.svc.run/plugin-name=people', admin);
    expect(roles.body.items.map((role: any) => role.metadata.name).sort()).toEqual([
      'people-role-manage-own-persons',
      'people-role-manage-persons',
      'people-role-view-persons',
    ]);
    await eventually(async () => {
      const plugin = await call(x!, 'GET', PLUGIN_OBJECT, admin);
      return (
        (plugin.body.status?.replicas ?? []).map((r: any) => `${r.name}:${r.phase}`).join() ===
        'x:STARTED,y:STARTED,z:STARTED'
      );
    }, 'each replica reporting STARTED');
  });
});
