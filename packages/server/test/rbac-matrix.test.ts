import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';

type Subject = 'anonymous' | 'no-roles' | 'contributor' | 'author' | 'editor' | 'view' | 'manage' | 'super';
const SUBJECTS: Subject[] = ['anonymous', 'no-roles', 'contributor', 'author', 'editor', 'view', 'manage', 'super'];
const ROLES: Record<Exclude<Subject, 'anonymous' | 'super'>, string[]> = {
  'no-roles': [],
  contributor: ['contributor'],
  author: ['author'],
  editor: ['editor'],
  view: ['people-role-view-persons'],
  manage: ['people-role-manage-persons'],
};

const OPERATIONS = [
  'list',
  'get',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'custom-api',
  'core-api',
  'non-resource',
] as const;
type Operation = (typeof OPERATIONS)[number];
/** One expected status per operation, in the order of OPERATIONS (the type keeps every row that long). */
type StatusEach<T extends readonly unknown[]> = { readonly [K in keyof T]: number };
type Row = StatusEach<typeof OPERATIONS>;

/**
 * The status each subject gets for each operation, written by hand from the policy: the people plugin's view template
 * grants reading persons and its console API, its manage template writing them too; the core API (roles) is the super
 * administrator's; /healthz is public; the built-in content roles grant nothing on persons. A request without
 * credentials is 401 where one with them would be 403.
 */
const EXPECTED: Record<Subject, Row> = {
  //           list get  watch create update patch delete delcol custom core public
  anonymous: [401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 200],
  'no-roles': [403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 200],
  contributor: [403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 200],
  author: [403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 200],
  editor: [403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 200],
  view: [200, 200, 200, 403, 403, 403, 403, 403, 200, 403, 200],
  manage: [200, 200, 200, 201, 200, 200, 200, 200, 200, 403, 200],
  super: [200, 200, 200, 201, 200, 200, 200, 200, 200, 200, 200],
};

describe.each(BACKENDS)('every subject against every kind of API (%s)', (backend) => {
  let t: TestServer;
  const sessions = new Map<Subject, Session | undefined>();

  beforeAll(async () => {
    t = await startTestServer({ backend });
    const admin = await login(t, ADMIN.username, ADMIN.password);
    sessions.set('anonymous', undefined);
    sessions.set('super', admin);
    for (const [subject, roles] of Object.entries(ROLES)) {
      sessions.set(subject as Subject, await userWithRoles(t, admin, `u-${subject}`, roles));
    }
    // A target object per subject, so a successful write by one does not disturb another.
    for (const subject of SUBJECTS) {
      const created = await as(t, admin)(
        'POST',
        PERSONS,
        person(`target-${subject}`, { name: `Target ${subject}` }, { 'example.com/owner': subject }),
      );
      expect(created.status).toBe(201);
    }
  }, 120_000);
  afterAll(() => t.close());

  const send = async (subject: Subject, op: Operation) => {
    const request = as(t, sessions.get(subject));
    const target = `${PERSONS}/target-${subject}`;
    switch (op) {
      case 'list':
        return request('GET', PERSONS);
      case 'get':
        return request('GET', target);
      case 'watch':
        return request('GET', `${PERSONS}?watch=true&timeoutSeconds=1&labelSelector=example.com/owner=${subject}`);
      case 'create':
        return request('POST', PERSONS, person(`created-by-${subject}`, { name: `Created by ${subject}` }));
      case 'update': {
        const current = (await as(t, sessions.get('super'))('GET', target)).body;
        return request('PUT', target, { ...current, spec: { ...current.spec, age: 44 } });
      }
      case 'patch':
        return request('PATCH', target, { spec: { age: 45 } }, { 'content-type': 'application/merge-patch+json' });
      case 'delete':
        return request('DELETE', target);
      case 'deletecollection':
        return request('DELETE', `${PERSONS}?labelSelector=example.com/owner=${subject}`);
      case 'custom-api':
        return request('GET', '/apis/console.api.people.svc.run/v1alpha1/stats');
      case 'core-api':
        return request('GET', '/api/v1alpha1/roles');
      default:
        return request('GET', '/healthz');
    }
  };

  for (const subject of SUBJECTS) {
    it(`${subject}: ${OPERATIONS.join(', ')}`, async () => {
      const got: Record<string, number> = {};
      const want: Record<string, number> = {};
      for (const [i, op] of OPERATIONS.entries()) {
        got[op] = (await send(subject, op)).status;
        want[op] = EXPECTED[subject][i]!;
      }
      expect(got).toEqual(want);
    });
  }
});
