import {
  ApiException,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { BACKENDS, startTestServer, superAdminToken, type TestServer } from './harness.js';
import { NOTES, NOTES_PLUGINS, note } from './watch-client.js';

const G = { group: 'notes.svc.run', version: 'v1', plural: 'notes' };
type Note = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

/** Rejects with the client's ApiException; answers its HTTP code. */
async function codeOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
  throw new Error('the call succeeded');
}

/**
 * `@kubernetes/client-node` against a real listening svc (issue 15, "Done means"): every CustomObjectsApi call at its
 * defaults, KubernetesObjectApi (which reads discovery), Watch and makeInformer with resume and re-list after 410.
 * Over HTTP with the administrator's bearer token, on the notes fixture model (no controller writes behind the test).
 */
describe.each(BACKENDS)('@kubernetes/client-node (%s)', (backend) => {
  let t: TestServer;
  let kc: KubeConfig;
  let api: CustomObjectsApi;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [NOTES_PLUGINS] });
    const server = await t.server.listen();
    const token = await superAdminToken(t, 'client-node tests');
    kc = new KubeConfig();
    kc.loadFromOptions({
      // client-node speaks plain HTTP only when told to skip TLS verification (there is no TLS to verify).
      clusters: [{ name: 'svc', server, skipTLSVerify: true }],
      users: [{ name: 'admin', token }],
      contexts: [{ name: 'svc', cluster: 'svc', user: 'admin' }],
      currentContext: 'svc',
    });
    api = kc.makeApiClient(CustomObjectsApi);
  }, 60_000);
  afterAll(() => t.close());

  it('creates, gets, lists, replaces and deletes with CustomObjectsApi at its defaults', async () => {
    const created = (await api.createClusterCustomObject({
      ...G,
      body: note('cn-a', { text: 'one' }, { cn: 'crud' }),
    })) as Note;
    expect(created.metadata?.name).toBe('cn-a');
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    const got = (await api.getClusterCustomObject({ ...G, name: 'cn-a' })) as Note;
    expect(got.spec).toEqual({ text: 'one' });
    const list = (await api.listClusterCustomObject({ ...G, labelSelector: 'cn=crud' })) as { items: Note[] };
    expect(list.items.map((n) => n.metadata?.name)).toEqual(['cn-a']);
    // Replace sends what it read, resourceVersion included: the lock.
    const replaced = (await api.replaceClusterCustomObject({
      ...G,
      name: 'cn-a',
      body: { ...got, spec: { text: 'two' } },
    })) as Note;
    expect(replaced.spec).toEqual({ text: 'two' });
    expect(await codeOf(api.replaceClusterCustomObject({ ...G, name: 'cn-a', body: { ...got, spec: {} } }))).toBe(409);
    // The default delete: DELETE with content-type application/json and an empty body.
    const deleted = (await api.deleteClusterCustomObject({ ...G, name: 'cn-a' })) as Note;
    expect(deleted.metadata?.name).toBe('cn-a');
    expect(await codeOf(api.getClusterCustomObject({ ...G, name: 'cn-a' }))).toBe(404);
  });

  it('pages a list with limit and continue', async () => {
    for (const name of ['cn-p1', 'cn-p2', 'cn-p3']) {
      await api.createClusterCustomObject({ ...G, body: note(name, {}, { cn: 'page' }) });
    }
    const first = (await api.listClusterCustomObject({ ...G, labelSelector: 'cn=page', limit: 2 })) as any;
    expect(first.items).toHaveLength(2);
    const rest = (await api.listClusterCustomObject({
      ...G,
      labelSelector: 'cn=page',
      limit: 2,
      _continue: first.metadata.continue,
    })) as any;
    expect(rest.items).toHaveLength(1);
    expect(rest.metadata.continue).toBeUndefined();
    expect([...first.items, ...rest.items].map((n: Note) => n.metadata?.name).sort()).toEqual([
      'cn-p1',
      'cn-p2',
      'cn-p3',
    ]);
  });

  it('patches with JSON Patch by default, and merge patch or server-side apply when asked', async () => {
    await api.createClusterCustomObject({ ...G, body: note('cn-b', { text: 'one', n: 1 }) });
    const jsonPatched = (await api.patchClusterCustomObject({
      ...G,
      name: 'cn-b',
      body: [{ op: 'replace', path: '/spec/n', value: 2 }],
    })) as Note;
    expect(jsonPatched.spec).toEqual({ text: 'one', n: 2 });
    const merged = (await api.patchClusterCustomObject(
      { ...G, name: 'cn-b', body: { spec: { text: 'merged' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Note;
    expect(merged.spec).toEqual({ text: 'merged', n: 2 });
    const applied = (await api.patchClusterCustomObject(
      { ...G, name: 'cn-applied', fieldManager: 'client-node', body: note('cn-applied', { text: 'applied' }) },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    )) as Note;
    expect(applied.spec).toEqual({ text: 'applied' });
    expect(applied.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([['client-node', 'Apply']]);
  });

  it('reads and writes the status subresource', async () => {
    await api.createClusterCustomObject({ ...G, body: note('cn-s', { text: 's' }) });
    const read = (await api.getClusterCustomObjectStatus({ ...G, name: 'cn-s' })) as Note;
    expect(read.status).toBeUndefined();
    const replaced = (await api.replaceClusterCustomObjectStatus({
      ...G,
      name: 'cn-s',
      body: { ...read, status: { phase: 'Ready' } },
    })) as Note;
    expect(replaced.status).toEqual({ phase: 'Ready' });
    const patched = (await api.patchClusterCustomObjectStatus({
      ...G,
      name: 'cn-s',
      body: [{ op: 'replace', path: '/status/phase', value: 'Done' }],
    })) as Note;
    expect(patched.status).toEqual({ phase: 'Done' });
    expect(patched.spec).toEqual({ text: 's' });
  });

  it('deletes a collection by label', async () => {
    for (const name of ['cn-d1', 'cn-d2'])
      await api.createClusterCustomObject({ ...G, body: note(name, {}, { cn: 'gone' }) });
    await api.createClusterCustomObject({ ...G, body: note('cn-d3', {}, { cn: 'kept' }) });
    const answer = await api.deleteCollectionClusterCustomObject({ ...G, labelSelector: 'cn=gone' });
    expect(answer).toEqual({ deleted: 2 });
    const left = (await api.listClusterCustomObject({ ...G, labelSelector: 'cn' })) as { items: Note[] };
    expect(left.items.map((n) => n.metadata?.name).filter((n) => n?.startsWith('cn-d'))).toEqual(['cn-d3']);
  });

  it('reads, lists, creates, replaces, patches and deletes with KubernetesObjectApi (through discovery)', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const created = await objects.create<Note>(note('cn-k', { text: 'k' }) as Note);
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const read = await objects.read<Note>({ apiVersion: 'notes.svc.run/v1', kind: 'Note', metadata: { name: 'cn-k' } });
    expect(read.spec).toEqual({ text: 'k' });
    const list = await objects.list<Note>(
      'notes.svc.run/v1',
      'Note',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'cn',
    );
    expect(list.items.map((n) => n.metadata?.name)).toContain('cn-d3');
    const replaced = await objects.replace<Note>({ ...read, spec: { text: 'replaced' } });
    expect(replaced.spec).toEqual({ text: 'replaced' });
    // Its default patch is a strategic merge patch, applied as a merge patch.
    const patched = await objects.patch<Note>({
      apiVersion: 'notes.svc.run/v1',
      kind: 'Note',
      metadata: { name: 'cn-k' },
      spec: { color: 'red' },
    } as Note);
    expect(patched.spec).toEqual({ text: 'replaced', color: 'red' });
    await objects.delete({ apiVersion: 'notes.svc.run/v1', kind: 'Note', metadata: { name: 'cn-k' } });
    expect(
      await codeOf(objects.read({ apiVersion: 'notes.svc.run/v1', kind: 'Note', metadata: { name: 'cn-k' } })),
    ).toBe(404);
  });

  it('watches from a revision, and gets an ERROR 410 for a compacted one', async () => {
    const before = (await api.listClusterCustomObject({ ...G })) as any;
    const events: Array<[string, string | undefined]> = [];
    const controller = await new Watch(kc).watch(
      NOTES,
      { resourceVersion: before.metadata.resourceVersion, labelSelector: 'cn=watch' },
      (type, object: Note) => events.push([type, object.metadata?.name]),
      () => undefined,
    );
    await api.createClusterCustomObject({ ...G, body: note('cn-w', {}, { cn: 'watch' }) });
    await api.patchClusterCustomObject({ ...G, name: 'cn-w', body: [{ op: 'add', path: '/spec/n', value: 1 }] });
    await api.deleteClusterCustomObject({ ...G, name: 'cn-w' });
    await eventually(() => events.length === 3, 'three events');
    expect(events).toEqual([
      ['ADDED', 'cn-w'],
      ['MODIFIED', 'cn-w'],
      ['DELETED', 'cn-w'],
    ]);
    controller.abort();

    await t.server.store.compact(1);
    const expired: Array<[string, unknown]> = [];
    let ended = false;
    await new Watch(kc).watch(
      NOTES,
      { resourceVersion: before.metadata.resourceVersion },
      (type, object: { code?: number }) => expired.push([type, object.code]),
      () => (ended = true),
    );
    await eventually(() => ended, 'the expired watch to end');
    expect(expired).toEqual([['ERROR', 410]]);
  });

  it('keeps an informer in sync: resumes without re-listing, re-lists after 410', async () => {
    let lists = 0;
    const informer = makeInformer<Note>(
      kc,
      NOTES,
      async () => {
        lists++;
        return (await api.listClusterCustomObject({ ...G, labelSelector: 'cn=informer' })) as any;
      },
      'cn=informer',
    );
    const added: string[] = [];
    const updated: string[] = [];
    const deleted: string[] = [];
    informer.on('add', (o) => added.push(o.metadata!.name!));
    informer.on('update', (o) => updated.push(o.metadata!.name!));
    informer.on('delete', (o) => deleted.push(o.metadata!.name!));
    await api.createClusterCustomObject({ ...G, body: note('cn-i1', {}, { cn: 'informer' }) });
    await informer.start();
    try {
      await eventually(() => added.includes('cn-i1'), 'the listed note');
      await api.createClusterCustomObject({ ...G, body: note('cn-i2', {}, { cn: 'informer' }) });
      await api.patchClusterCustomObject({ ...G, name: 'cn-i1', body: [{ op: 'add', path: '/spec/n', value: 1 }] });
      await eventually(() => added.includes('cn-i2') && updated.includes('cn-i1'), 'the add and the update');
      expect(lists).toBe(1);

      // The server ends every watch: the informer watches again from its revision, without listing.
      t.server.watches.endAll();
      await api.deleteClusterCustomObject({ ...G, name: 'cn-i2' });
      await eventually(() => deleted.includes('cn-i2'), 'the delete after the resume');
      expect(lists).toBe(1);
      expect(informer.list().map((n) => n.metadata?.name)).toEqual(['cn-i1']);

      // Stopped, it misses writes the history then forgets: its revision is expired, so it lists again.
      await informer.stop();
      await api.createClusterCustomObject({ ...G, body: note('cn-i3', {}, { cn: 'informer' }) });
      await api.deleteClusterCustomObject({ ...G, name: 'cn-i1' });
      await t.server.store.compact(1);
      await informer.start();
      await eventually(() => lists === 2 && added.includes('cn-i3') && deleted.includes('cn-i1'), 'the re-list');
      expect(informer.list().map((n) => n.metadata?.name)).toEqual(['cn-i3']);
    } finally {
      await informer.stop();
    }
  });
});
