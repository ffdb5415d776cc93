import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const accessReview = (spec: unknown) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec,
});
const can = (verb: string, resource: string, group: string, extra: Record<string, string> = {}) =>
  accessReview({ resourceAttributes: { verb, resource, group, ...extra } });

/** A Kubernetes protobuf body as kubectl writes it: `k8s\0`, then runtime.Unknown{typeMeta, raw}. */
function protobufBody(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = new BinaryWriter().uint32(10).string(apiVersion).uint32(18).string(kind).finish();
  const unknown = new BinaryWriter().uint32(10).bytes(typeMeta).uint32(18).bytes(raw).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

/** SelfSubjectAccessReview{spec: {resourceAttributes: {verb 2, group 3, resource 5}}} in protobuf. */
function protobufAccessReview(verb: string, group: string, resource: string): Buffer {
  const attributes = new BinaryWriter().uint32(18).string(verb).uint32(26).string(group).uint32(42).string(resource);
  const spec = new BinaryWriter().uint32(10).bytes(attributes.finish()).finish();
  const review = new BinaryWriter().uint32(18).bytes(spec).finish();
  return protobufBody('authorization.k8s.io/v1', 'SelfSubjectAccessReview', review);
}

/** Kubernetes' self reviews over HTTP (issue 30 item 5): the gate's decision, JSON or protobuf, bad bodies refused. */
describe.each(BACKENDS)('Kubernetes self reviews (%s)', (backend) => {
  let t: TestServer;
  let admin: Session;
  let viewer: Session;
  let nobody: Session;
  beforeAll(async () => {
    t = await startTestServer({ backend });
    admin = await login(t, ADMIN.username, ADMIN.password);
    viewer = await userWithRoles(t, admin, 'vera', ['people-role-view-persons']);
    nobody = await userWithRoles(t, admin, 'nemo', []);
  }, 60_000);
  afterAll(() => t?.close());

  it('answers with the gate’s decision and reason, naming the plugin’s rule', async () => {
    const yes = await as(t, viewer)('POST', SSAR, can('list', 'persons', 'people.svc.run'));
    expect(yes.status).toBe(201);
    expect(yes.body.kind).toBe('SelfSubjectAccessReview');
    expect(yes.body.spec).toEqual({
      resourceAttributes: { verb: 'list', resource: 'persons', group: 'people.svc.run' },
    });
    expect(yes.body.status.allowed).toBe(true);
    expect(yes.body.status.reason).toContain('people-role-view-persons');
    const no = await as(t, viewer)('POST', SSAR, can('create', 'persons', 'people.svc.run'));
    expect(no.status).toBe(201);
    expect(no.body.status).toEqual({
      allowed: false,
      denied: true,
      reason: 'no rule allowed create on persons in group "people.svc.run" (plugin people)',
    });
    const named = await as(t, nobody)('POST', SSAR, can('get', 'users', 'api.console.svc.run', { name: '-' }));
    expect(named.body.status.allowed).toBe(true);
    const other = await as(t, nobody)('POST', SSAR, can('get', 'users', 'api.console.svc.run', { name: 'admin' }));
    expect(other.body.status.allowed).toBe(false);
    const superAdmin = await as(t, admin)('POST', SSAR, can('delete', 'persons', 'people.svc.run'));
    expect(superAdmin.body.status.allowed).toBe(true);
  });

  it('answers non-resource requests as the gate does', async () => {
    const body = accessReview({ nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    expect((await as(t, nobody)('POST', SSAR, body)).body.status.allowed).toBe(false);
    expect((await as(t, admin)('POST', SSAR, body)).body.status.allowed).toBe(true);
  });

  it('reads the protobuf kubectl sends and answers JSON; protobuf elsewhere is a 415', async () => {
    const headers = { 'content-type': PROTOBUF, accept: `${PROTOBUF},application/json` };
    const yes = await as(t, viewer)('POST', SSAR, protobufAccessReview('get', 'people.svc.run', 'persons'), headers);
    expect(yes.status).toBe(201);
    expect(yes.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(yes.body.spec.resourceAttributes).toEqual({ verb: 'get', group: 'people.svc.run', resource: 'persons' });
    expect(yes.body.status.allowed).toBe(true);
    const no = await as(t, viewer)('POST', SSAR, protobufAccessReview('delete', 'people.svc.run', 'persons'), headers);
    expect(no.body.status.allowed).toBe(false);
    const whoami = protobufBody('authentication.k8s.io/v1', 'SelfSubjectReview', new Uint8Array());
    const self = await as(t, viewer)('POST', SSR, whoami, headers);
    expect(self.status).toBe(201);
    expect(self.body.status).toEqual({ userInfo: { username: 'vera' } });
    const garbage = await as(t, viewer)('POST', SSAR, Buffer.from('not protobuf'), headers);
    expect(garbage.status).toBe(400);
    expect(garbage.text).toContain('k8s');
    const elsewhere = await as(t, admin)('POST', '/apis/people.svc.run/v1alpha1/persons', whoami, headers);
    expect(elsewhere.status).toBe(415);
  });

  it('names the caller, and lists the rules they hold', async () => {
    const self = await as(t, nobody)('POST', SSR, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(self.status).toBe(201);
    expect(self.body.status.userInfo.username).toBe('nemo');
    const rules = await as(t, viewer)('POST', SSRR, { kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } });
    expect(rules.status).toBe(201);
    expect(rules.body.status.incomplete).toBe(false);
    expect(rules.body.status.resourceRules).toContainEqual(
      expect.objectContaining({ apiGroups: ['people.svc.run'], resources: ['persons', 'persons/status'] }),
    );
  });

  it('refuses bad bodies with 400 naming what is wrong', async () => {
    const refused = async (body: unknown, fragment: string) => {
      const answer = await as(t, viewer)('POST', SSAR, body);
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body.detail).toContain(fragment);
    };
    await refused([1, 2], 'must be a SelfSubjectAccessReview object');
    await refused(
      { ...can('get', 'persons', ''), kind: 'SelfSubjectReview' },
      'kind must be "SelfSubjectAccessReview"',
    );
    await refused({ ...can('get', 'persons', ''), apiVersion: 'v1' }, 'apiVersion must be "authorization.k8s.io/v1"');
    await refused(accessReview(undefined), 'spec is required');
    await refused(accessReview({}), 'exactly one of');
    await refused(
      accessReview({ resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/' } }),
      'exactly one of',
    );
    await refused(accessReview({ resourceAttributes: { resource: 'persons' } }), '/spec/resourceAttributes/verb');
    await refused(accessReview({ resourceAttributes: { verb: 'get', name: 7 } }), '/spec/resourceAttributes/name');
    await refused(accessReview({ nonResourceAttributes: { verb: 'get', path: 'metrics' } }), 'starting with "/"');
  });

  it('is for signed-in callers only, and refuses impersonation', async () => {
    expect((await t.anonymous('POST', SSAR, can('get', 'persons', ''))).status).toBe(401);
    expect((await t.anonymous('POST', SSR, {})).status).toBe(401);
    const impersonating = await as(t, admin)('POST', SSR, {}, { 'impersonate-user': 'vera' });
    expect(impersonating.status).toBe(403);
    expect(impersonating.body.detail).toContain('impersonation (the Impersonate-User header, kubectl --as)');
    const discovery = await t.anonymous('GET', '/apis', undefined, { 'impersonate-group': 'admins' });
    expect(discovery.status).toBe(401);
  });

  it('lists the reviews in discovery, legacy and aggregated', async () => {
    const group = await t.anonymous('GET', '/apis/authorization.k8s.io/v1');
    expect(group.status).toBe(200);
    expect(group.body.resources).toEqual([
      {
        name: 'selfsubjectaccessreviews',
        singularName: 'selfsubjectaccessreview',
        namespaced: false,
        kind: 'SelfSubjectAccessReview',
        verbs: ['create'],
      },
      {
        name: 'selfsubjectrulesreviews',
        singularName: 'selfsubjectrulesreview',
        namespaced: false,
        kind: 'SelfSubjectRulesReview',
        verbs: ['create'],
      },
    ]);
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    const aggregated = await t.anonymous('GET', '/apis', undefined, { accept });
    const authn = aggregated.body.items.find((i: any) => i.metadata.name === 'authentication.k8s.io');
    expect(authn.versions[0].resources).toEqual([
      {
        resource: 'selfsubjectreviews',
        responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' },
        scope: 'Cluster',
        singularResource: 'selfsubjectreview',
        verbs: ['create'],
      },
    ]);
  });
});
