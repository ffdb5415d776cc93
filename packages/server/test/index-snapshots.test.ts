/**
 * Index snapshots as an operator meets them (`svc serve`, SQLite, the people plugin): a graceful stop writes them, a
 * start reads them back, and after a kill -9 (no snapshot written) the next start replays the history since the last
 * one. Every list answers as it did before the restart. SVC_INDEX_SNAPSHOTS=1 gives even these few objects a snapshot.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BACKENDS,
  capturingLogger,
  PEOPLE_PLUGINS,
  PERSONS,
  peopleSettled,
  person,
  startTestServer,
  TEST_ADMIN,
} from './harness.js';
import { CLI, childEnv, type ServeProcess, signInOver, spawnServe } from './serve-process.js';

const serve = (dataDir: string, snapshots = '1') =>
  spawnServe({
    SVC_DATA_DIR: dataDir,
    SVC_PLUGINS_DIR: PEOPLE_PLUGINS,
    SVC_LOG_LEVEL: 'info',
    SVC_LOG_FORMAT: 'json',
    SVC_ACCESS_LOG: 'false',
    SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
    SVC_INDEX_SNAPSHOTS: snapshots,
  });

/** Stops the process as an operator does (SIGTERM) and waits for it to exit. */
async function stop(svc: ServeProcess): Promise<void> {
  const exited = new Promise((resolve) => svc.child.once('exit', resolve));
  svc.child.kill('SIGTERM');
  await exited;
}

const messages = (svc: ServeProcess) =>
  svc
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line).msg as string);

const LISTS = [
  '?sort=metadata.name',
  '?labelSelector=team%3Da&sort=spec.age,desc',
  '?fieldSelector=spec.gender%3DMALE&sort=metadata.name',
  '?labelSelector=!team&sort=metadata.name',
];

async function names(svc: ServeProcess, auth: Record<string, string>): Promise<string[][]> {
  return Promise.all(
    LISTS.map(async (query) => {
      const list = await (await fetch(`${svc.url}${PERSONS}${query}`, { headers: auth })).json();
      return list.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    }),
  );
}

describe('index snapshots across restarts (svc serve)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('a stop writes them, a start reads them, and after a kill -9 the start replays the history since', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-snapshots-'));
    dirs.push(dataDir);
    const first = await serve(dataDir);
    let auth = await signInOver(first.url);
    const send = (svc: ServeProcess, method: string, url: string, body?: unknown, type = 'application/json') =>
      fetch(`${svc.url}${url}`, {
        method,
        headers: { ...auth, 'content-type': type },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // p-1 … p-9: team a, b, c in turn; ages 21 … 29; MALE for the even ones.
    for (let n = 1; n <= 9; n++) {
      const created = await send(first, 'POST', PERSONS, {
        ...person(`p-${n}`, { age: 20 + n, gender: n % 2 === 0 ? 'MALE' : 'FEMALE' }, { team: 'abc'[(n - 1) % 3]! }),
      });
      expect(created.status).toBe(201);
    }
    await stop(first);
    expect(messages(first)).toContainEqual(
      expect.stringMatching(/^wrote index snapshots of \d+ models \(\d+ objects\)/),
    );
    // A backup carries the password hashes, never the snapshots (derived from the objects, bound to this history).
    const backup = spawnSync(process.execPath, [CLI, 'export', '--data-dir', dataDir, '-o', '-'], {
      encoding: 'utf8',
      env: childEnv(),
    });
    expect(backup.status).toBe(0);
    expect(backup.stdout).toMatch(/kind: SecretRecords\nmetadata:\n {2}name: security\.svc\.run\/credentials\n/);
    expect(backup.stdout).not.toContain('index-snapshots');

    const second = await serve(dataDir);
    expect(messages(second)).toContainEqual(
      expect.stringMatching(
        /^read indexes of people\.svc\.run\/v1alpha1 Person from the snapshot at revision \d+ and 0 later changes: 12 objects/,
      ),
    );
    auth = await signInOver(second.url);
    // With the plugin's three sample persons (ada, alan, grace: labelled, but not with `team`).
    expect(await names(second, auth)).toEqual([
      ['ada', 'alan', 'grace', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'p-7', 'p-8', 'p-9'],
      ['p-7', 'p-4', 'p-1'],
      ['alan', 'p-2', 'p-4', 'p-6', 'p-8'],
      ['ada', 'alan', 'grace'],
    ]);
    // After the snapshot: a person added without a team, p-4 moved to team b and made older, p-7 deleted.
    expect((await send(second, 'POST', PERSONS, person('p-10', { gender: 'MALE' }))).status).toBe(201);
    const patch = { metadata: { labels: { team: 'b' } }, spec: { age: 70 } };
    expect((await send(second, 'PATCH', `${PERSONS}/p-4`, patch, 'application/merge-patch+json')).status).toBe(200);
    expect((await send(second, 'DELETE', `${PERSONS}/p-7`)).status).toBe(200);
    // The people plugin's finalizer holds a deletion until its controller has said farewell.
    for (let i = 0; i < 100 && (await send(second, 'GET', `${PERSONS}/p-7`)).status !== 404; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const before = await names(second, auth);
    expect(before).toEqual([
      ['ada', 'alan', 'grace', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'p-8', 'p-9', 'p-10'],
      ['p-1'],
      ['alan', 'p-2', 'p-4', 'p-6', 'p-8', 'p-10'],
      ['ada', 'alan', 'grace', 'p-10'],
    ]);
    await second.kill();

    const third = await serve(dataDir);
    try {
      const read = messages(third).find((message) => message.startsWith('read indexes of people.svc.run'));
      // The snapshot is the first stop's; what happened after it comes from the history.
      expect(read).toMatch(/from the snapshot at revision \d+ and ([1-9]\d*) later changes: 12 objects/);
      auth = await signInOver(third.url);
      expect(await names(third, auth)).toEqual(before);
    } finally {
      await stop(third);
    }
    // Built from the objects, with snapshots off, the indexes answer the same.
    const fourth = await serve(dataDir, 'off');
    try {
      expect(messages(fourth).some((message) => message.includes('snapshot'))).toBe(false);
      auth = await signInOver(fourth.url);
      expect(await names(fourth, auth)).toEqual(before);
    } finally {
      await fourth.kill();
    }
  });
});

describe.each(BACKENDS)('index snapshots in the store (%s)', (backend) => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('are written at close and read at the next start, with the writes of the run after', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-snapshots-'));
    dirs.push(dataDir);
    const schema = `t_${Math.random().toString(36).slice(2, 10)}`;
    const start = async () => {
      const log = capturingLogger();
      const t = await startTestServer({
        backend,
        schema,
        logger: log.logger,
        env: { SVC_DATA_DIR: dataDir, SVC_INDEX_SNAPSHOTS: '1' },
      });
      const read = () =>
        log
          .lines()
          .map((line) => String(line.msg))
          .find((msg) => msg.startsWith('read indexes of people.svc.run/v1alpha1 Person'));
      return { t, read };
    };
    const first = await start();
    expect(first.read()).toBeUndefined();
    for (const n of [1, 2, 3]) {
      expect((await first.t.request('POST', PERSONS, person(`q-${n}`, { age: 40 + n }))).status).toBe(201);
    }
    await peopleSettled(first.t);
    await first.t.close({ keepData: true });

    const second = await start();
    expect(second.read()).toMatch(/from the snapshot at revision \d+ and 0 later changes: 6 objects/);
    expect((await second.t.request('DELETE', `${PERSONS}/q-2`)).status).toBe(200);
    expect((await second.t.request('POST', PERSONS, person('q-4', { age: 99 }))).status).toBe(201);
    await peopleSettled(second.t);
    await second.t.close({ keepData: true });

    const third = await start();
    try {
      expect(third.read()).toMatch(/from the snapshot at revision \d+ and 0 later changes: 6 objects/);
      const { body } = await third.t.request('GET', `${PERSONS}?sort=spec.age,desc`);
      const names = body.items.map((p: { metadata: { name: string } }) => p.metadata.name);
      expect(names.filter((name: string) => name.startsWith('q-'))).toEqual(['q-4', 'q-3', 'q-1']);
    } finally {
      await third.t.close();
    }
  });
});
