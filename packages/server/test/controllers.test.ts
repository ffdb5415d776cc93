import type { ReconcileContext, ReconcilerDefinition } from '@svc/plugin-api';
import { handleFinalizer } from '@svc/plugin-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtensionClient } from '../src/registry/client.js';
import { eventually } from './eventually.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note, watchWebSocket } from './watch-client.js';

const NOTE = { apiVersion: 'notes.svc.run/v1', kind: 'Note' };
const merge = { 'content-type': 'application/merge-patch+json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reconciler framework on a real server: queue semantics, backoff, requeueAfter, finalizers to the final DELETED. */
describe.each(BACKENDS)('controllers (%s)', (backend) => {
  let t: TestServer;
  let owner = 0;
  const warnings: string[] = [];
  beforeAll(async () => {
    t = await startTestServer({
      backend,
      pluginsDirs: [NOTES_PLUGINS],
      serverOptions: { reconcileBackoff: { baseDelayMs: 5, maxDelayMs: 40 } },
    });
  });
  afterAll(() => t.close());

  const context = (): ReconcileContext => ({
    client: createExtensionClient(t.server.registry, t.server.objects),
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (m) => void warnings.push(m),
      error: () => undefined,
    },
  });
  const add = (definition: Omit<ReconcilerDefinition, 'model'>) => {
    const name = `plugin:test-${++owner}` as const;
    t.server.controllers.add(name, { model: NOTE, ...definition }, context());
    return name;
  };

  it('retries a failing name with growing, capped backoff until it succeeds', async () => {
    await t.request('POST', NOTES, note('flaky', { color: 'flaky' }));
    let calls = 0;
    const owner = add({
      name: 'flaky',
      fieldSelector: 'spec.color=flaky',
      async reconcile() {
        if (++calls <= 5) throw new Error(`attempt ${calls} failed`);
      },
    });
    await eventually(() => calls === 6, 'the sixth call');
    const delays = warnings
      .filter((w) => w.includes('flaky failed'))
      .map((w) => Number(/retrying in (\d+) ms/.exec(w)![1]));
    expect(delays).toEqual([5, 10, 20, 40, 40]);
    await t.server.controllers.removeOwner(owner);
  });

  it('never runs two workers on one name, while several names run in parallel', async () => {
    const names = ['p-0', 'p-1', 'p-2', 'p-3'];
    for (const name of names) await t.request('POST', NOTES, note(name, { color: 'parallel' }));
    const running = new Map<string, number>();
    let maxPerName = 0;
    let maxOverall = 0;
    let calls = 0;
    const owner = add({
      name: 'parallel',
      workers: 4,
      fieldSelector: 'spec.color=parallel',
      async reconcile({ name }) {
        calls++;
        running.set(name, (running.get(name) ?? 0) + 1);
        maxPerName = Math.max(maxPerName, running.get(name)!);
        maxOverall = Math.max(
          maxOverall,
          [...running.values()].reduce((a, b) => a + b, 0),
        );
        await sleep(5);
        running.set(name, running.get(name)! - 1);
      },
    });
    for (let i = 0; i < 30; i++) {
      await Promise.all(names.map((name) => t.request('PATCH', `${NOTES}/${name}`, { spec: { n: i } }, merge)));
    }
    await eventually(() => [...running.values()].every((n) => n === 0) && calls >= names.length, 'the queue to drain');
    expect(maxPerName).toBe(1);
    expect(maxOverall).toBeGreaterThan(1);
    await t.server.controllers.removeOwner(owner);
  });

  it('calls once more after its own writes, not once per write delivered late', async () => {
    await t.request('POST', NOTES, note('twice', { color: 'twice' }));
    const calls: string[] = [];
    const owner = add({
      name: 'two-writes',
      fieldSelector: 'spec.color=twice',
      async reconcile({ name }, { client }) {
        const found = await client.fetch<{
          apiVersion: string;
          kind: string;
          metadata: { name: string };
          status?: { step?: number };
        }>(NOTE, name);
        calls.push(`step ${found?.status?.step ?? 0}`);
        if (found && found.status?.step === undefined) {
          const first = await client.updateStatus({ ...found, status: { step: 1 } });
          await client.updateStatus({ ...first, status: { step: 2 } });
        }
      },
    });
    await eventually(() => calls.length >= 2, 'a second call');
    await sleep(200);
    // The second call was caused by the writes and read both; the second write's delivery adds no third.
    expect(calls).toEqual(['step 0', 'step 2']);
    // A change made by someone else afterwards is still seen.
    await t.request('PATCH', `${NOTES}/twice`, { spec: { n: 1 } }, merge);
    await eventually(() => calls.length === 3, 'a call for the later change');
    await t.server.controllers.removeOwner(owner);
  });

  it('lets the event loop turn during a long pass of reconciles that never wait', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `busy-${i}`);
    await Promise.all(names.map((name) => t.request('POST', NOTES, note(name, { color: 'busy' }))));
    let calls = 0;
    const owner = add({
      name: 'busy',
      fieldSelector: 'spec.color=busy',
      async reconcile() {
        calls++;
        const until = performance.now() + 1; // a millisecond of work, and no I/O
        while (performance.now() < until);
      },
    });
    // Without turns of the loop, this timer would fire only after all 200 ms of the pass.
    const callsWhenTimerFired = await new Promise<number>((resolve) => setTimeout(() => resolve(calls), 0));
    expect(callsWhenTimerFired).toBeLessThan(names.length);
    await eventually(() => calls >= names.length, 'the whole pass');
    await t.server.controllers.removeOwner(owner);
  });

  it('reconciles a name again after requeueAfter, with no write in between', async () => {
    await t.request('POST', NOTES, note('poll', { color: 'poll' }));
    let calls = 0;
    const owner = add({
      name: 'poll',
      fieldSelector: 'spec.color=poll',
      async reconcile() {
        calls++;
        return calls < 4 ? { requeueAfter: 10 } : undefined;
      },
    });
    await eventually(() => calls === 4, 'four calls');
    await t.server.controllers.removeOwner(owner);
  });

  it('runs cleanup and removes its finalizer on delete, which ends in the final DELETED event', async () => {
    const cleaned: string[] = [];
    const owner = add({
      name: 'finalizer',
      labelSelector: 'example.com/kept',
      async reconcile({ name }, { client }) {
        const object = await client.fetch(NOTE, name);
        if (!object) return;
        await handleFinalizer(client, object, 'example.com/cleanup', (o) => void cleaned.push(o.metadata.name));
      },
    });
    const listed = await t.request('GET', NOTES);
    const watch = watchWebSocket(
      t.server.url ?? (await t.server.listen()),
      `${NOTES}?resourceVersion=${listed.body.metadata.resourceVersion}&labelSelector=example.com/kept`,
      { headers: t.adminHeaders },
    );
    await t.request('POST', NOTES, note('kept', {}, { 'example.com/kept': 'yes' }));
    await eventually(
      async () => (await t.request('GET', `${NOTES}/kept`)).body.metadata.finalizers?.length === 1,
      'the finalizer',
    );
    expect((await t.request('DELETE', `${NOTES}/kept`)).status).toBe(200);
    await watch.until((e) => e.some((x) => x.type === 'DELETED'), 'the DELETED event');
    // Created; finalizer added; deletion declared; the write that removes the last finalizer removes the object.
    expect(watch.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(watch.events[2]!.object.metadata.deletionTimestamp).toBeTruthy();
    expect(cleaned).toEqual(['kept']);
    expect((await t.request('GET', `${NOTES}/kept`)).status).toBe(404);
    watch.close();
    await t.server.controllers.removeOwner(owner);
  });
});

describe('garbage collection of deleted objects without finalizers', () => {
  it('removes such an object left in the store when its model is registered', async () => {
    const first = await startTestServer({ pluginsDirs: [NOTES_PLUGINS] });
    const leftover = {
      ...note('leftover'),
      metadata: { name: 'leftover', deletionTimestamp: '2026-01-01T00:00:00.000Z', finalizers: [] },
    };
    await first.server.store.create('notes.svc.run/notes', 'leftover', () => Buffer.from(JSON.stringify(leftover)));
    await first.server.close();
    const second = await startTestServer({ pluginsDirs: [NOTES_PLUGINS], env: { SVC_DATA_DIR: first.dataDir } });
    try {
      await eventually(
        async () => (await second.request('GET', `${NOTES}/leftover`)).status === 404,
        'the leftover to go',
      );
    } finally {
      await second.close();
      await first.close().catch(() => undefined);
    }
  });
});
