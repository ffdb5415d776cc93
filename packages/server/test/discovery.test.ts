import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { BACKENDS, PEOPLE_PLUGINS, startTestServer, type TestServer } from './harness.js';

/** What kubectl 1.32 sends to `/api` and `/apis`. */
const KUBECTL_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const PROBE_PLUGINS = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-discovery');

/**
 * Version and Kubernetes discovery (issue 15 item 1), readable without signing in, following the models served: a
 * plugin's group appears when it starts and goes when it stops. A plugin's route at a discovery-shaped path stays closed.
 */
describe.each(BACKENDS)('discovery (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [PEOPLE_PLUGINS, PROBE_PLUGINS] });
  }, 60_000);
  afterAll(() => t.close());

  it('answers /version to anyone', async () => {
    const version = await t.anonymous('GET', '/version');
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ major: '1', minor: '33', compiler: 'node' });
    expect(version.body.gitVersion).toMatch(/^v1\.33\.0\+svc\.\d+\.\d+\.\d+/);
  });

  it('lists the core version and the groups served', async () => {
    const core = await t.anonymous('GET', '/api');
    expect(core.body).toMatchObject({ kind: 'APIVersions', versions: ['v1alpha1'] });
    const groups = await t.anonymous('GET', '/apis');
    expect(groups.status).toBe(200);
    expect(groups.body.kind).toBe('APIGroupList');
    const people = groups.body.groups.find((g: { name: string }) => g.name === 'people.svc.run');
    expect(people).toEqual({
      name: 'people.svc.run',
      versions: [{ groupVersion: 'people.svc.run/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'people.svc.run/v1alpha1', version: 'v1alpha1' },
    });
    expect(groups.body.groups.map((g: { name: string }) => g.name)).toEqual(
      expect.arrayContaining(['content.svc.run', 'plugin.svc.run', 'security.svc.run']),
    );
    const group = await t.anonymous('GET', '/apis/people.svc.run');
    expect(group.body).toMatchObject({ kind: 'APIGroup', name: 'people.svc.run' });
  });

  it('describes each resource of a group version, with its status subresource', async () => {
    const list = await t.anonymous('GET', '/apis/people.svc.run/v1alpha1');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'people.svc.run/v1alpha1',
      resources: [
        {
          name: 'persons',
          singularName: 'person',
          namespaced: false,
          kind: 'Person',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['ps'],
        },
        {
          name: 'persons/status',
          singularName: '',
          namespaced: false,
          kind: 'Person',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    const core = await t.anonymous('GET', '/api/v1alpha1');
    expect(core.body.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['rolebindings', 'roles', 'users']),
    );
    const unknown = await t.anonymous('GET', '/apis/nothing.example.com/v1');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers the aggregated discovery kubectl asks for, with the content type naming its kind', async () => {
    const groups = await t.anonymous('GET', '/apis', undefined, { accept: KUBECTL_DISCOVERY_ACCEPT });
    expect(groups.status).toBe(200);
    expect(groups.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(groups.body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    const people = groups.body.items.find((g: any) => g.metadata.name === 'people.svc.run');
    expect(people).toEqual({
      metadata: { name: 'people.svc.run', creationTimestamp: null },
      versions: [
        {
          version: 'v1alpha1',
          freshness: 'Current',
          resources: [
            {
              resource: 'persons',
              responseKind: { group: 'people.svc.run', version: 'v1alpha1', kind: 'Person' },
              scope: 'Cluster',
              singularResource: 'person',
              verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
              shortNames: ['ps'],
              subresources: [
                {
                  subresource: 'status',
                  responseKind: { group: 'people.svc.run', version: 'v1alpha1', kind: 'Person' },
                  verbs: ['get', 'patch', 'update'],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(groups.body.items.some((g: any) => g.metadata.name === undefined)).toBe(false);

    const core = await t.anonymous('GET', '/api', undefined, { accept: KUBECTL_DISCOVERY_ACCEPT });
    expect(core.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(core.body.items).toHaveLength(1);
    expect(core.body.items[0].metadata).toEqual({ creationTimestamp: null });
    const users = core.body.items[0].versions[0].resources.find((r: any) => r.resource === 'users');
    expect(users).toMatchObject({ responseKind: { group: '', version: 'v1alpha1', kind: 'User' }, scope: 'Cluster' });
  });

  it('answers v2beta1 when asked for it first, and the legacy documents when no aggregated kind is asked', async () => {
    const beta = await t.anonymous('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
    });
    expect(beta.headers['content-type']).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    );
    expect(beta.body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    // Protobuf is not served: skipped for the JSON entry after it.
    const proto = await t.anonymous('GET', '/apis', undefined, {
      accept:
        'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
        KUBECTL_DISCOVERY_ACCEPT,
    });
    expect(proto.body.apiVersion).toBe('apidiscovery.k8s.io/v2');
    for (const accept of ['application/json', 'application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList']) {
      const legacy = await t.anonymous('GET', '/apis', undefined, { accept });
      expect(legacy.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(legacy.body.kind).toBe('APIGroupList');
    }
  });

  it("follows plugins: a stopped plugin's group is gone, and back when it starts", async () => {
    const state = (enable: boolean) => t.request('PUT', `${CONSOLE}/plugins/people/plugin-state`, { enable });
    const aggregated = async () =>
      ((await t.anonymous('GET', '/apis', undefined, { accept: KUBECTL_DISCOVERY_ACCEPT })).body.items as any[]).map(
        (g) => g.metadata.name,
      );
    const names = async () =>
      ((await t.anonymous('GET', '/apis')).body.groups as { name: string }[]).map((g) => g.name);
    // Read once first, so the documents are cached when the plugin stops.
    expect(await aggregated()).toContain('people.svc.run');
    expect((await t.anonymous('GET', '/apis/people.svc.run/v1alpha1')).status).toBe(200);
    expect((await state(false)).status).toBe(200);
    expect(await names()).not.toContain('people.svc.run');
    expect(await aggregated()).not.toContain('people.svc.run');
    expect((await t.anonymous('GET', '/apis/people.svc.run/v1alpha1')).status).toBe(404);
    expect((await state(true)).status).toBe(200);
    expect(await names()).toContain('people.svc.run');
    expect(await aggregated()).toContain('people.svc.run');
    expect((await t.anonymous('GET', '/apis/people.svc.run/v1alpha1')).status).toBe(200);
  });

  it("keeps a plugin's own route at a discovery-shaped path closed", async () => {
    expect((await t.anonymous('GET', '/apis/api.probe.svc.run/v1')).status).toBe(401);
    const admin = await t.request('GET', '/apis/api.probe.svc.run/v1');
    expect(admin.body).toEqual({ secret: 'probe' });
  });
});
