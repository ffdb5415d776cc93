import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, login, userWithRoles } from './auth-harness.js';
import { BACKENDS, PERSONS, peopleSettled, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const config = (name: string, spec: string) =>
  `apiVersion: people.svc.run/v1alpha1\nkind: Person\nmetadata:\n  name: ${name}\nspec:\n${spec}`;

/**
 * Server-side apply (issue 15 item 3): PATCH with application/apply-patch+yaml creates or updates, records the
 * manager's fields in metadata.managedFields, writes nothing for the same configuration, and refuses to change another
 * manager's fields unless forced. Creating through apply needs create as well as patch.
 */
describe.each(BACKENDS)('server-side apply (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  const apply = (name: string, body: string, query = 'fieldManager=kubectl') =>
    t.request('PATCH', `${PERSONS}/${name}?${query}`, body, APPLY);

  it('creates when absent (201), then answers the same configuration without writing', async () => {
    const created = await apply('sam', config('sam', '  name: Sam Apply\n  age: 40\n'));
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual({ name: 'Sam Apply', age: 40 });
    expect(created.body.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'people.svc.run/v1alpha1',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:name': {}, 'f:age': {} } },
      },
    ]);
    // Once the people controller is done with it, the same configuration writes nothing.
    await peopleSettled(t);
    const stored = await t.request('GET', `${PERSONS}/sam`);
    const again = await apply('sam', config('sam', '  name: Sam Apply\n  age: 40\n'));
    expect(again.status).toBe(200);
    expect(again.text).toBe(stored.text);
    expect(again.body.metadata.managedFields).toEqual(created.body.metadata.managedFields);
  });

  it("updates: sets what is applied, removes what this manager no longer applies, keeps other writers' fields", async () => {
    expect((await apply('una', config('una', '  name: Una\n  age: 20\n'))).status).toBe(201);
    const merged = await t.request(
      'PATCH',
      `${PERSONS}/una`,
      { spec: { gender: 'FEMALE' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(merged.status).toBe(200);
    // A JSON body is YAML too.
    const updated = await apply(
      'una',
      JSON.stringify({
        apiVersion: 'people.svc.run/v1alpha1',
        kind: 'Person',
        metadata: { name: 'una' },
        spec: { name: 'Una B' },
      }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toEqual({ name: 'Una B', gender: 'FEMALE' });
    expect(updated.body.metadata.managedFields.map((e: any) => e.fieldsV1)).toEqual([{ 'f:spec': { 'f:name': {} } }]);
  });

  it("refuses another manager's field (409) unless forced, which takes it over", async () => {
    expect((await apply('vic', config('vic', '  name: Vic\n  age: 30\n'))).status).toBe(201);
    const refused = await apply('vic', config('vic', '  age: 31\n'), 'fieldManager=helm');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" using people.svc.run/v1alpha1: .spec.age',
    );
    const forced = await apply('vic', config('vic', '  age: 31\n'), 'fieldManager=helm&force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.spec).toEqual({ name: 'Vic', age: 31 });
    expect(forced.body.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1])).toEqual([
      ['kubectl', { 'f:spec': { 'f:name': {} } }],
      ['helm', { 'f:spec': { 'f:age': {} } }],
    ]);
    // Other writes keep the managers as stored, whatever their body says.
    const replaced = await t.request(
      'PATCH',
      `${PERSONS}/vic`,
      { metadata: { managedFields: [] }, spec: { gender: 'MALE' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.metadata.managedFields).toHaveLength(2);
  });

  it('refuses what Kubernetes refuses, naming what is wrong', async () => {
    const noManager = await apply('wes', config('wes', '  name: Wes\n'), '');
    expect(noManager.status).toBe(400);
    expect(noManager.body.detail).toMatch(/fieldManager is required/);
    const otherName = await apply('wes', config('xan', '  name: Wes\n'));
    expect(otherName.status).toBe(400);
    expect(otherName.body.detail).toBe('the name of the object (xan) does not match the name on the URL (wes)');
    const badYaml = await apply('wes', 'spec: [unclosed');
    expect(badYaml.status).toBe(400);
    expect(badYaml.body.detail).toMatch(/not valid YAML/);
    const aliased = await apply('wes', `${config('wes', '  name: &n Wes\n')}  nickname: *n\n`);
    expect(aliased.status).toBe(400);
    expect(aliased.body.detail).toBe(
      'the apply configuration, line 6, column 9: anchors and aliases (&n) are not accepted; write the value out',
    );
    expect((await apply('vic', 'metadata:\n  name: vic\nspec:\n  age: 1\n')).body.detail).toBe(
      'the apply configuration must have apiVersion "people.svc.run/v1alpha1" and kind "Person", not undefined and undefined',
    );
    const invalid = await apply('wes', config('wes', '  age: 400\n'));
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([{ path: '/spec/age', message: 'must be <= 150' }]);
    const forceOnMerge = await t.request(
      'PATCH',
      `${PERSONS}/vic?force=true`,
      { spec: {} },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(forceOnMerge.status).toBe(400);
    expect((await t.request('GET', `${PERSONS}/wes`)).status).toBe(404);
  });

  it('with dryRun=All answers the object without storing it', async () => {
    const dry = await apply('yan', config('yan', '  name: Yan\n'), 'fieldManager=kubectl&dryRun=All');
    expect(dry.status).toBe(201);
    expect(dry.body.spec).toEqual({ name: 'Yan' });
    expect((await t.request('GET', `${PERSONS}/yan`)).status).toBe(404);
  });

  it('creates only for a caller who may create; patching an existing object needs patch alone', async () => {
    const admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'person-patcher' },
      rules: [{ apiGroups: ['people.svc.run'], resources: ['persons'], verbs: ['get', 'patch'] }],
    };
    expect((await t.request('POST', '/api/v1alpha1/roles', role)).status).toBe(201);
    const patcher = as(t, await userWithRoles(t, admin, 'patcher', ['person-patcher']));
    const refused = await patcher(
      'PATCH',
      `${PERSONS}/zed?fieldManager=kubectl`,
      config('zed', '  name: Zed\n'),
      APPLY,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/^user "patcher" may not create this/);
    expect((await t.request('GET', `${PERSONS}/zed`)).status).toBe(404);
    expect((await apply('zed', config('zed', '  name: Zed\n'))).status).toBe(201);
    const patched = await patcher(
      'PATCH',
      `${PERSONS}/zed?fieldManager=kubectl`,
      config('zed', '  name: Zed Z\n'),
      APPLY,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.spec.name).toBe('Zed Z');
  });
});
