/**
 * Crashes while clients write: `svc serve` is killed with SIGKILL (its whole process group, or the started pid alone)
 * in the middle of creates and updates, and started again at once, round after round, on SQLite and PostgreSQL.
 * Every restart must succeed on its first try; every write answered 2xx must be there after it (a 2xx means
 * committed); a write whose answer was lost may or may not have happened, but never half: its object holds either
 * the value before or the value sent. SVC_CRASH_ROUNDS sets the rounds per backend (10 by default).
 *
 * Half the rounds start svc with the machine's Node.js when it is older than 22, so that it hands itself over to the
 * bundled one (bin/svc.js): killing the started pid alone must then end the server too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, type Backend, dropSchema, PEOPLE_PLUGINS, PERSONS, PG_URL, person, TEST_ADMIN } from './harness.js';
import { SVC_BIN } from './offline-cli.js';
import { seededRandom } from './seeded-random.js';
import { olderNode, processEnded, type ServeProcess, signInOver, spawnServe } from './serve-process.js';

const ROUNDS = Number(process.env.SVC_CRASH_ROUNDS ?? 10);
/** Writes acknowledged per round before the kill (the kill then lands among writes in flight). */
const WRITES_PER_ROUND = 40;
const WRITERS = 6;
const OLDER_NODE = olderNode();

/** Each round: how svc is started and what is killed. */
const ROUND_KINDS = [
  { launcher: 'node', kill: 'group' },
  { launcher: 'older node', kill: 'pid' },
  { launcher: 'node', kill: 'pid' },
  { launcher: 'older node', kill: 'group' },
] as const;

/** What a name must hold after a restart: the age acknowledged, or (answer lost) any of these, `absent` included. */
type Expected = { acknowledged: number } | { oneOf: Array<number | 'absent'> };

describe.each(BACKENDS)('kill -9 while clients write, then restart at once: %s', (backend: Backend) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`${ROUNDS} rounds: every restart first time, every acknowledged write kept, none half-written`, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const schema = `t_crash_${Math.random().toString(36).slice(2, 8)}`;
    if (backend === 'postgres') cleanups.push(() => dropSchema(schema));
    const env = {
      SVC_DATA_DIR: dataDir,
      SVC_PLUGINS_DIR: PEOPLE_PLUGINS,
      SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
      SVC_LOG_FORMAT: 'json',
      SVC_ACCESS_LOG: 'false',
      ...(backend === 'postgres' ? { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema } : {}),
    };
    const random = seededRandom(backend === 'sqlite' ? 7 : 11);
    const expected = new Map<string, Expected>();
    let auth: Record<string, string> | undefined;
    let interrupted = 0;

    for (let round = 0; round <= ROUNDS; round++) {
      const kind = ROUND_KINDS[round % ROUND_KINDS.length]!;
      const command: [string, string] = [
        kind.launcher === 'older node' && OLDER_NODE ? OLDER_NODE : process.execPath,
        SVC_BIN,
      ];
      // Started once: a refusal (the lock still held, a broken store) fails the test here.
      const served = await spawnServe(env, 60_000, command, { detached: kind.kill === 'group' });
      const server = serverPid(served);
      try {
        auth ??= await signInOver(served.url);
        await checkStored(served, auth, expected);
        if (round === ROUNDS) break;
        interrupted += await writeAndKill(served, auth, expected, random, round, kind.kill);
      } finally {
        if (served.child.exitCode === null && served.child.signalCode === null) await served.kill();
      }
      // The server itself is gone (with the older Node.js it was the started process's child).
      const state = await processEnded(server);
      if (state !== 'ended') process.kill(server, 'SIGKILL');
      expect(state, `round ${round}: the server's process`).toBe('ended');
    }
    // The kills did land among writes: most rounds cut some off before their answer.
    expect(interrupted).toBeGreaterThanOrEqual(ROUNDS);
  }, 300_000);
});

/** The server's pid, from its first log line: the started process's, or its child's when it handed over. */
function serverPid(served: ServeProcess): number {
  const line = served
    .stdout()
    .split('\n')
    .find((l) => l.includes('"msg":"svc '));
  return (JSON.parse(line!) as { pid: number }).pid;
}

/**
 * Writers create and update persons until WRITES_PER_ROUND are acknowledged, then svc is killed while they go on.
 * Each name belongs to one writer, which waits for each answer, so a name has at most one write in flight. Answers
 * how many writes the kill cut off before their answer.
 */
async function writeAndKill(
  served: ServeProcess,
  auth: Record<string, string>,
  expected: Map<string, Expected>,
  random: () => number,
  round: number,
  kill: 'group' | 'pid',
): Promise<number> {
  let acknowledged = 0;
  let killed = false;
  let cutOff = 0;
  const send = (method: string, url: string, body: unknown, type = 'application/json') =>
    fetch(`${served.url}${url}`, {
      method,
      headers: { 'content-type': type, ...auth },
      body: JSON.stringify(body),
    });
  const writer = async (w: number) => {
    const own: string[] = [];
    for (let i = 0; ; i++) {
      const age = Math.floor(random() * 150);
      const known = own.filter((name) => 'acknowledged' in expected.get(name)!);
      const update = known.length > 0 && random() < 0.4;
      const name = update ? known[Math.floor(random() * known.length)]! : `crash-${round}-${w}-${i}`;
      const before = expected.get(name);
      const request = update
        ? send('PATCH', `${PERSONS}/${name}`, { spec: { age } }, 'application/merge-patch+json')
        : send('POST', PERSONS, person(name, { name: `Crash ${name}`, age }, { test: 'crash' }));
      // Until the answer comes, the name may hold what it held before, or what is being sent.
      const previous = before && 'acknowledged' in before ? before.acknowledged : 'absent';
      expected.set(name, { oneOf: [previous, age] });
      if (!update) own.push(name);
      let status: number;
      try {
        status = (await request).status;
      } catch {
        cutOff++; // the server died with this write in flight: it stays uncertain
        return;
      }
      if (status >= 200 && status < 300) {
        expected.set(name, { acknowledged: age });
        acknowledged++;
      } else if (status < 500) {
        expected.set(name, before ?? { oneOf: ['absent'] });
      }
      if (killed) return;
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  const deadline = Date.now() + 30_000;
  while (acknowledged < WRITES_PER_ROUND && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  killed = true;
  if (kill === 'group') process.kill(-served.child.pid!, 'SIGKILL');
  else served.child.kill('SIGKILL');
  await Promise.all(writers);
  expect(acknowledged, `round ${round}: writes acknowledged`).toBeGreaterThanOrEqual(WRITES_PER_ROUND);
  return cutOff;
}

/** After a restart: each name holds what it must, every object is whole, and nothing else is there. */
async function checkStored(served: ServeProcess, auth: Record<string, string>, expected: Map<string, Expected>) {
  const response = await fetch(`${served.url}${PERSONS}?labelSelector=test=crash`, { headers: auth });
  expect(response.status).toBe(200);
  const list = (await response.json()) as { total: number; items: any[] };
  expect(list.total).toBe(list.items.length);
  const stored = new Map<string, number>();
  for (const item of list.items) {
    const name = item.metadata.name as string;
    // Whole: as the API wrote it, with what it was sent.
    expect(item, name).toMatchObject({
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: { labels: { test: 'crash' }, uid: expect.any(String), version: expect.any(Number) },
      spec: { name: `Crash ${name}`, gender: 'FEMALE' },
    });
    stored.set(name, item.spec.age);
  }
  for (const [name, wanted] of expected) {
    const found = stored.has(name) ? stored.get(name)! : 'absent';
    if ('acknowledged' in wanted) expect(found, `${name}, acknowledged`).toBe(wanted.acknowledged);
    else expect(wanted.oneOf, `${name}, its answer lost`).toContain(found);
    // Whatever it holds now is committed: the next rounds start from it.
    expected.set(name, found === 'absent' ? { oneOf: ['absent'] } : { acknowledged: found });
  }
  expect([...stored.keys()].filter((name) => !expected.has(name))).toEqual([]);
}
