/**
 * Replicas under crashes: a mixed load (creates, updates, deletes) spread over three replicas while one of them, at
 * random, is killed with SIGKILL every few seconds and started again (same replica id). Afterwards no acknowledged
 * write is lost, and every replica's indexes answer exactly as a replica started fresh (indexes rebuilt from the
 * store) does. SVC_CRASH_SECONDS sets how long the load runs (20 s by default; the figure in docs/performance.md
 * comes from 60).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { PERSONS, person } from './harness.js';
import { call, type Replica, type ReplicaSet, replicaSet, signIn } from './replica-harness.js';
import { seededRandom } from './seeded-random.js';

const SECONDS = Number(process.env.SVC_CRASH_SECONDS ?? 20);
const SELECTOR = 'labelSelector=test=crash';

describe(`three replicas, one killed every few seconds for ${SECONDS} s`, () => {
  let set: ReplicaSet;
  const live = new Map<string, Replica>();

  beforeAll(async () => {
    set = await replicaSet('crash');
    for (const id of ['a', 'b', 'c']) live.set(id, await set.start(id));
  }, 120_000);
  afterAll(() => set?.close(), 60_000);

  it('loses no acknowledged write, and every index equals a rebuild from the store', async () => {
    const random = seededRandom(17);
    const admin = await signIn(live.get('a')!);
    const made = await call(
      live.get('a')!,
      'POST',
      '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens',
      admin,
      {
        spec: { name: 'crash', roles: ['super-role'] },
      },
    );
    const auth = { authorization: `Bearer ${made.body.metadata.annotations['security.svc.run/access-token']}` };
    for (const replica of live.values()) {
      await eventually(async () => (await call(replica, 'GET', PERSONS, auth)).status === 200, 'the token everywhere');
    }

    // What clients were told: name → the age it was acknowledged with, or 'deleted'. A request whose answer was lost
    // (its replica died mid-way) leaves that name uncertain: it may or may not have happened, so it is not checked.
    const acknowledged = new Map<string, number | 'deleted'>();
    const uncertain = new Set<string>();
    const busy = new Set<string>();
    const pick = () => {
      const replicas = [...live.values()];
      return replicas[Math.floor(random() * replicas.length)]!;
    };
    let stop = false;
    let writes = 0;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const names = [...acknowledged.keys()].filter(
          (n) => acknowledged.get(n) !== 'deleted' && !uncertain.has(n) && !busy.has(n),
        );
        const roll = random();
        let name: string;
        let send: (replica: Replica) => Promise<{ status: number; body: any }>;
        let outcome: number | 'deleted';
        if (roll < 0.6 || names.length < 10) {
          name = `crash-${w}-${i}`;
          const age = Math.floor(random() * 100);
          outcome = age;
          send = (r) =>
            call(r, 'POST', PERSONS, auth, person(name, { name: `Crash ${w} ${i}`, age }, { test: 'crash' }));
        } else if (roll < 0.9) {
          name = names[Math.floor(random() * names.length)]!;
          const age = Math.floor(random() * 100);
          outcome = age;
          send = (r) =>
            r
              .fetch(`${PERSONS}/${name}`, {
                method: 'PATCH',
                headers: { ...auth, 'content-type': 'application/merge-patch+json' },
                body: JSON.stringify({ spec: { age } }),
              })
              .then(async (response) => ({ status: response.status, body: await response.text() }));
        } else {
          name = names[Math.floor(random() * names.length)]!;
          outcome = 'deleted';
          send = (r) => call(r, 'DELETE', `${PERSONS}/${name}`, auth);
        }
        // Two writers never touch one name at once, so the last acknowledged outcome of a name is what it must hold.
        busy.add(name);
        try {
          const answer = await send(pick());
          if (answer.status >= 200 && answer.status < 300) {
            acknowledged.set(name, outcome);
            writes++;
          } else if (answer.status >= 500) uncertain.add(name);
        } catch {
          uncertain.add(name);
        } finally {
          busy.delete(name);
        }
      }
    };
    const killer = async () => {
      while (!stop) {
        await new Promise((r) => setTimeout(r, 2000 + random() * 2000));
        if (stop) return;
        const victim = pick();
        live.delete(victim.id);
        await victim.kill();
        const restarted = await set.start(victim.id);
        live.set(victim.id, restarted);
      }
    };
    const running = [...Array.from({ length: 6 }, (_, w) => writer(w)), killer()];
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    stop = true;
    await Promise.all(running);
    expect(writes).toBeGreaterThan(100);

    // A replica started now builds its indexes from the store: the reference the others must equal.
    const fresh = await set.start('fresh');
    const replicas = [...live.values(), fresh];
    for (const replica of replicas) {
      await eventually(async () => (await replica.fetch('/readyz')).status === 200, `${replica.id} ready`, 30_000);
    }
    // Deletions finish once the people controller (on the leader) drops its finalizer.
    await eventually(
      async () =>
        (await call(fresh, 'GET', `${PERSONS}?${SELECTOR}&fieldSelector=metadata.deletionTimestamp!=`, auth)).body
          .total === 0,
      'deletions finished',
      60_000,
    ).catch(async (error) => {
      const stuck = await call(fresh, 'GET', `${PERSONS}?${SELECTOR}&fieldSelector=metadata.deletionTimestamp!=`, auth);
      console.log(
        'STUCK',
        JSON.stringify(
          stuck.body.items.map((i: any) => [
            i.metadata.name,
            i.metadata.finalizers,
            i.metadata.resourceVersion,
            i.status,
          ]),
        ),
      );
      const { leaderOf } = await import('./replica-harness.js');
      console.log('LEADER', JSON.stringify(await leaderOf(set.schema)));
      for (const r of live.values())
        console.log(
          'OUT',
          r.id,
          r
            .output()
            .split('\n')
            .filter((l) => /warn|error|lead|"level":[456]0/.test(l))
            .slice(-15)
            .join('\n'),
        );
      throw error;
    });

    const stored = new Map<string, number>();
    for (let page = 1; ; page++) {
      const list = await call(fresh, 'GET', `${PERSONS}?${SELECTOR}&sort=metadata.name&size=500&page=${page}`, auth);
      for (const item of list.body.items) stored.set(item.metadata.name, item.spec.age);
      if (list.body.items.length < 500) break;
    }
    let checked = 0;
    for (const [name, outcome] of acknowledged) {
      if (uncertain.has(name)) continue;
      checked++;
      if (outcome === 'deleted') expect(stored.has(name), `${name} was deleted`).toBe(false);
      else expect(stored.get(name), `${name} at age ${outcome}`).toBe(outcome);
    }
    expect(checked).toBeGreaterThan(100);

    // Every replica's indexes answer as the fresh one's do: the same names in index order, the same counts.
    const answers = async (replica: Replica) => {
      const byAge: string[] = [];
      for (let page = 1; ; page++) {
        const list = await call(replica, 'GET', `${PERSONS}?${SELECTOR}&sort=spec.age&size=500&page=${page}`, auth);
        byAge.push(...list.body.items.map((item: any) => `${item.spec.age}:${item.metadata.name}`));
        if (list.body.items.length < 500) break;
      }
      const young = await call(
        replica,
        'GET',
        `${PERSONS}?${SELECTOR}&fieldSelector=spec.age=(0,1,2,3,4,5,6,7,8,9)&size=1`,
        auth,
      );
      const named = await call(replica, 'GET', `${PERSONS}?fieldSelector=spec.name=Crash%200%200&size=1`, auth);
      return { byAge, young: young.body.total, named: named.body.total };
    };
    const reference = await answers(fresh);
    expect(reference.byAge).toHaveLength(stored.size);
    for (const replica of live.values()) {
      await eventually(
        async () => JSON.stringify(await answers(replica)) === JSON.stringify(reference),
        `${replica.id}'s indexes equal to the rebuild`,
        20_000,
      ).catch(async (error) => {
        const mine = await answers(replica);
        const extra = mine.byAge.filter((x) => !reference.byAge.includes(x));
        const missing = reference.byAge.filter((x) => !mine.byAge.includes(x));
        console.log(
          'DIFF',
          replica.id,
          JSON.stringify({
            extra,
            missing,
            young: [mine.young, reference.young],
            named: [mine.named, reference.named],
          }),
        );
        for (const x of [...extra, ...missing].slice(0, 3)) {
          const n = x.split(':')[1];
          console.log(
            'OBJ',
            x,
            JSON.stringify((await call(replica, 'GET', `${PERSONS}/${n}`, auth)).body?.metadata),
            JSON.stringify((await call(fresh, 'GET', `${PERSONS}/${n}`, auth)).body?.metadata),
          );
        }
        throw error;
      });
    }
  }, 300_000);
});
