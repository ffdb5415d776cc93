import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, userWithRoles, type Session } from './auth-harness.js';
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

/** What each operation needs; the expected status follows from the subject's grants. */
const OPERATIONS = [
  { op: 'list', plugin: 'read' },
  { op: 'get', plugin: 'read' },
  { op: 'watch', plugin: 'read' },
  { op: 'create', plugin: 'write' },
  { op: 'update', plugin: 'write' },
  { op: 'patch', plugin: 'write' },
  { op: 'delete', plugin: 'write' },
  { op: 'deletecollection', plugin: 'write' },
  { op: 'custom-api', plugin: 'read' },
  { op: 'core-api', plugin: 'super' },
  { op: 'non-resource', plugin: 'public' },
] as const;

function expected(subject: Subject, need: (typeof OPERATIONS)[number]['plugin'], op: string): number {
  const ok = op === 'create' ? 201 : op === 'non-resource' ? 200 : 200;
  const denied = subject === 'anonymous' ? 401 : 403;
  if (need === 'public') return ok;
  if (subject === 'super') return ok;
  if (need === 'super') return denied;
  if (need === 'read') return subject === 'view' || subject === 'manage' ? ok : denied;
  return subject === 'manage' ? ok : denied;
}

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
      const created = await as(t, admin)('POST', PERSONS, person(`target-${subject}`, { name: `Target ${subject}` }, { 'example.com/owner': subject }));
      expect(created.status).toBe(201);
    }
  }, 120_000);
  afterAll(() => t.close());

  const send = async (subject: Subject, op: string) => {
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
    it(`${subject}: ${OPERATIONS.map((o) => o.op).join(', ')}`, async () => {
      const got: Record<string, number> = {};
      const want: Record<string, number> = {};
      for (const { op, plugin } of OPERATIONS) {
        got[op] = (await send(subject, op)).status;
        want[op] = expected(subject, plugin, op);
      }
      expect(got).toEqual(want);
    });
  }
});
