import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { startTestServer, type TestServer } from './harness.js';

const MODELS = `${CONSOLE}/models`;

interface Item {
  kind: string;
  apiVersion: string;
  plural: string;
  plugin?: string;
  verbs: string[];
  indexes: Array<{ name: string; unique: boolean; computed: boolean }>;
  printerColumns: Array<{ name: string; jsonPath: string }>;
  schema?: { properties?: Record<string, unknown> };
}

describe('GET models: what the resource browser may show each caller', () => {
  let t: TestServer;
  let admin: Session;

  beforeAll(async () => {
    t = await startTestServer();
    admin = await login(t, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(() => t.close());

  const modelsOf = async (session: Session | undefined) => {
    const answer = await as(t, session)('GET', MODELS);
    return { status: answer.status, items: (answer.body as { items?: Item[] } | undefined)?.items ?? [] };
  };
  const persons = (items: Item[]) =>
    items.find((m) => m.apiVersion === 'people.svc.run/v1alpha1' && m.kind === 'Person');

  it('gives the super administrator every model with every verb, its indexes, columns and schema', async () => {
    const { status, items } = await modelsOf(admin);
    expect(status).toBe(200);
    expect(items.map((m) => `${m.apiVersion} ${m.kind}`)).toEqual(
      expect.arrayContaining([
        'people.svc.run/v1alpha1 Person',
        'content.svc.run/v1alpha1 Post',
        'v1alpha1 Role',
        'v1alpha1 User',
      ]),
    );
    const person = persons(items)!;
    expect(person.plugin).toBe('people');
    expect(person.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect(person.indexes).toEqual([
      { name: 'metadata.name', unique: true, computed: false },
      { name: 'metadata.creationTimestamp', unique: false, computed: false },
      { name: 'metadata.deletionTimestamp', unique: false, computed: false },
      { name: 'spec.name', unique: true, computed: false },
      { name: 'spec.age', unique: false, computed: false },
      { name: 'spec.gender', unique: false, computed: false },
    ]);
    expect(person.printerColumns.map((c) => c.jsonPath)).toEqual([
      '.spec.name',
      '.spec.age',
      '.spec.gender',
      '.status.ageGroup',
    ]);
    expect(Object.keys(person.schema?.properties ?? {})).toEqual(['spec', 'status']);
  });

  it("answers a person viewer's verbs as the gate decides them, and nothing it may not touch", async () => {
    const viewer = await userWithRoles(t, admin, 'vera', ['people-role-view-persons']);
    const { status, items } = await modelsOf(viewer);
    expect(status).toBe(200);
    expect(items.map((m) => m.kind)).toEqual(['Person']);
    expect(persons(items)!.verbs).toEqual(['get', 'list', 'watch']);
    // The gate agrees: listing is allowed, creating is not.
    expect((await as(t, viewer)('GET', '/apis/people.svc.run/v1alpha1/persons?size=1')).status).toBe(200);
    const create = await as(t, viewer)('POST', '/apis/people.svc.run/v1alpha1/persons', {});
    expect(create.status).toBe(403);
  });

  it('adds the verbs of a further role, and gives an editor posts only', async () => {
    const manager = await userWithRoles(t, admin, 'mona', ['people-role-manage-persons']);
    expect(persons((await modelsOf(manager)).items)!.verbs).toEqual([
      'create',
      'delete',
      'deletecollection',
      'get',
      'list',
      'patch',
      'update',
      'watch',
    ]);
    const editor = await userWithRoles(t, admin, 'edith', ['editor']);
    const posts = (await modelsOf(editor)).items;
    expect(posts.map((m) => `${m.apiVersion} ${m.kind}`)).toEqual(['content.svc.run/v1alpha1 Post']);
  });

  it('gives a signed-in user without roles an empty list, and an anonymous caller a 401', async () => {
    const plain = await userWithRoles(t, admin, 'pat', []);
    expect(await modelsOf(plain)).toEqual({ status: 200, items: [] });
    expect((await modelsOf(undefined)).status).toBe(401);
  });

  it('grants the UI permission system:resources:view to whoever may list a model, and to nobody else', async () => {
    const uiOf = async (session: Session) =>
      (await as(t, session)('GET', `${CONSOLE}/users/-/permissions`)).body.uiPermissions as string[];
    const viewer = await userWithRoles(t, admin, 'victor', ['people-role-view-persons']);
    expect(await uiOf(viewer)).toEqual(['plugin:people:view', 'system:resources:view']);
    const plain = await userWithRoles(t, admin, 'paula', []);
    expect(await uiOf(plain)).toEqual([]);
  });

  it('does not count a rule that names only some objects', async () => {
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'one-person' },
      rules: [{ apiGroups: ['people.svc.run'], resources: ['persons'], resourceNames: ['ada'], verbs: ['get'] }],
    };
    expect((await as(t, admin)('POST', '/api/v1alpha1/roles', role)).status).toBe(201);
    const one = await userWithRoles(t, admin, 'olga', ['one-person']);
    expect((await modelsOf(one)).items).toEqual([]);
  });
});
