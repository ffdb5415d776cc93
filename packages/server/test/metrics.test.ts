import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, as, login, type Session, userWithRoles } from './auth-harness.js';
import { eventually } from './eventually.js';
import { PERSONS, person, startTestServer, type TestServer } from './harness.js';

const ROLES = '/api/v1alpha1/roles';

/** The value of one sample line (`name{labels} value`) in Prometheus text, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  let t: TestServer;
  let admin: Session;
  beforeAll(async () => {
    t = await startTestServer();
    admin = await login(t, ADMIN.username, ADMIN.password);
  }, 60_000);
  afterAll(() => t.close());

  const PEOPLE = 'controller="person-status",owner="plugin:people"';

  it("reports a reconciler's queue, workers and reconciles, the objects and the process", async () => {
    const before = (await as(t, admin)('GET', '/metrics')).text;
    const succeededBefore = sample(before, `controller_runtime_reconcile_total{${PEOPLE},result="success"}`)!;
    const personsBefore = sample(before, 'apiserver_storage_objects{resource="persons.people.svc.run"}')!;
    for (const name of ['m1', 'm2', 'm3'])
      expect((await t.request('POST', PERSONS, person(name, { name: name.toUpperCase(), age: 30 }))).status).toBe(201);
    // Each new person is reconciled at least twice (its finalizer, then its status), and the queue drains.
    await eventually(async () => {
      const text = (await as(t, admin)('GET', '/metrics')).text;
      return (
        sample(text, `controller_runtime_reconcile_total{${PEOPLE},result="success"}`)! >= succeededBefore + 6 &&
        sample(text, 'workqueue_depth{name="person-status",owner="plugin:people"}') === 0 &&
        sample(text, `controller_runtime_active_workers{${PEOPLE}}`) === 0
      );
    }, 'the people controller to reconcile three new persons');
    const answer = await as(t, admin)('GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(answer.text, 'apiserver_storage_objects{resource="persons.people.svc.run"}')).toBe(personsBefore + 3);
    expect(sample(answer.text, `controller_runtime_reconcile_total{${PEOPLE},result="error"}`)).toBe(0);
    expect(sample(answer.text, `controller_runtime_max_concurrent_reconciles{${PEOPLE}}`)).toBeGreaterThanOrEqual(1);
    expect(sample(answer.text, 'svc_leader')).toBe(1);
    expect(sample(answer.text, 'svc_watchers')).toBe(0);
    expect(sample(answer.text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    // Each reconcile is timed in controller-runtime's histogram: one observation per reconcile finished.
    const finished = ['success', 'requeue_after', 'error']
      .map((result) => sample(answer.text, `controller_runtime_reconcile_total{${PEOPLE},result="${result}"}`)!)
      .reduce((sum, count) => sum + count, 0);
    expect(sample(answer.text, `controller_runtime_reconcile_time_seconds_count{${PEOPLE}}`)).toBe(finished);
    expect(sample(answer.text, `controller_runtime_reconcile_time_seconds_bucket{${PEOPLE},le="+Inf"}`)).toBe(finished);
    expect(
      sample(answer.text, `controller_runtime_reconcile_time_seconds_bucket{${PEOPLE},le="0.005"}`),
    ).toBeLessThanOrEqual(finished);
    expect(sample(answer.text, `controller_runtime_reconcile_time_seconds_sum{${PEOPLE}}`)).toBeGreaterThan(0);
    expect(answer.text).toContain('# TYPE controller_runtime_reconcile_time_seconds histogram');
    expect(answer.text).toContain('# TYPE controller_runtime_reconcile_total counter');
    expect(answer.text).toContain('# TYPE workqueue_depth gauge');
  });

  it('is closed to anonymous callers and to users without a role allowing it', async () => {
    expect((await t.anonymous('GET', '/metrics')).status).toBe(401);
    const plain = await userWithRoles(t, admin, 'no-metrics', []);
    const refused = await as(t, plain)('GET', '/metrics');
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('workqueue_depth');
  });

  it('opens to a role with nonResourceURLs /metrics, verb get', async () => {
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    };
    expect((await as(t, admin)('POST', ROLES, role)).status).toBe(201);
    const scraper = await userWithRoles(t, admin, 'scraper', ['metrics-reader']);
    const answer = await as(t, scraper)('GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('workqueue_depth{name="person-status",owner="plugin:people"}');
  });
});

describe('a server with controllers off (SVC_CONTROLLERS=off)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_CONTROLLERS: 'off' } });
  }, 60_000);
  afterAll(() => t.close());

  it('serves writes but reconciles nothing, and says so in /metrics', async () => {
    expect((await t.request('POST', PERSONS, person('idle', { name: 'Idle', age: 30 }))).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idle = (await t.request('GET', `${PERSONS}/idle`)).body;
    expect(idle.status).toBeUndefined();
    // The model's own finalizer comes with the create; nothing more does.
    expect(idle.metadata.finalizers).toEqual(['people.svc.run/farewell']);
    expect(idle.metadata.version).toBe(0);
    const text = (await t.request('GET', '/metrics')).text;
    expect(sample(text, 'svc_leader')).toBe(0);
    expect(sample(text, 'workqueue_depth{name="person-status",owner="plugin:people"}')).toBe(0);
    expect(
      sample(
        text,
        'controller_runtime_reconcile_total{controller="person-status",owner="plugin:people",result="success"}',
      ),
    ).toBe(0);
  });
});
