import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, settingsFromArgs } from '../src/config.js';
import { HOST_VERSION } from '../src/version.js';
import { eventually } from './eventually.js';
import { BACKENDS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { watchHttp, watchWebSocket } from './watch-client.js';

/** The value of one sample line (`name{labels} value`) in Prometheus text; 0 when absent (nothing counted yet). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const PEOPLE = 'group="people.svc.run",version="v1alpha1",resource="persons"';

/**
 * The Kubernetes API server's request families, as its dashboards read them: every request counted by verb, group,
 * version, resource, subresource and code, and timed (watches aside) in Kubernetes' buckets.
 */
describe('request metrics', () => {
  let t: TestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer();
    base = await t.server.listen();
  }, 60_000);
  afterAll(() => t.close());

  const scrape = async () => (await t.request('GET', '/metrics')).text;
  /** How much each series grew while `work` ran. */
  const counted = async (work: () => Promise<void>) => {
    const before = await scrape();
    await work();
    const after = await scrape();
    return { after, delta: (series: string) => sample(after, series) - sample(before, series) };
  };

  it('counts a create, a get, a list and a 404 under their verbs, and times them', async () => {
    const { after, delta } = await counted(async () => {
      expect((await t.request('POST', PERSONS, person('counted'))).status).toBe(201);
      expect((await t.request('GET', `${PERSONS}/counted`)).status).toBe(200);
      expect((await t.request('GET', PERSONS)).status).toBe(200);
      expect((await t.request('GET', `${PERSONS}/absent`)).status).toBe(404);
      expect((await t.request('GET', '/api/v1alpha1/roles')).status).toBe(200);
      expect((await t.request('GET', '/healthz')).status).toBe(200);
    });
    expect(delta(`apiserver_request_total{verb="POST",${PEOPLE},subresource="",code="201"}`)).toBe(1);
    expect(delta(`apiserver_request_total{verb="GET",${PEOPLE},subresource="",code="200"}`)).toBe(1);
    expect(delta(`apiserver_request_total{verb="GET",${PEOPLE},subresource="",code="404"}`)).toBe(1);
    expect(delta(`apiserver_request_total{verb="LIST",${PEOPLE},subresource="",code="200"}`)).toBe(1);
    // The core group is the empty one; a non-resource request is labelled with its path, as /healthz is in Kubernetes.
    expect(
      delta(
        'apiserver_request_total{verb="LIST",group="",version="v1alpha1",resource="roles",subresource="",code="200"}',
      ),
    ).toBe(1);
    expect(
      delta('apiserver_request_total{verb="GET",group="",version="",resource="",subresource="/healthz",code="200"}'),
    ).toBe(1);

    // The two GETs (200 and 404) are timed in one series: buckets with `le`, then the sum and the count.
    const gets = `verb="GET",${PEOPLE},subresource=""`;
    expect(delta(`apiserver_request_duration_seconds_count{${gets}}`)).toBe(2);
    expect(delta(`apiserver_request_duration_seconds_bucket{${gets},le="+Inf"}`)).toBe(2);
    expect(sample(after, `apiserver_request_duration_seconds_bucket{${gets},le="60"}`)).toBe(
      sample(after, `apiserver_request_duration_seconds_count{${gets}}`),
    );
    expect(after).toContain(`apiserver_request_duration_seconds_bucket{${gets},le="0.005"} `);
    expect(sample(after, `apiserver_request_duration_seconds_sum{${gets}}`)).toBeGreaterThan(0);
    expect(after).toContain('# TYPE apiserver_request_total counter');
    expect(after).toContain('# TYPE apiserver_request_duration_seconds histogram');
  });

  it('counts server-side apply as APPLY', async () => {
    const yaml =
      'apiVersion: people.svc.run/v1alpha1\nkind: Person\nmetadata:\n  name: applied\nspec:\n  name: Applied\n';
    const { delta } = await counted(async () => {
      const applied = await t.request('PATCH', `${PERSONS}/applied?fieldManager=metrics`, yaml, {
        'content-type': 'application/apply-patch+yaml',
      });
      expect(applied.status).toBe(201);
    });
    expect(delta(`apiserver_request_total{verb="APPLY",${PEOPLE},subresource="",code="201"}`)).toBe(1);
  });

  it('counts a request to a path nothing serves under one fixed label, not its path', async () => {
    const { after, delta } = await counted(async () => {
      expect((await t.request('GET', '/apis/made.up.example/v1/widgets')).status).toBe(404);
      expect((await t.request('GET', '/apis/made.up.example/v1/widgets/w1')).status).toBe(404);
      expect((await t.request('GET', `${PERSONS}/counted/made-up-subresource`)).status).toBe(404);
      expect((await t.anonymous('GET', '/made/up/path')).status).toBe(401);
    });
    const unknown = 'group="",version="",resource="",subresource="unknown"';
    expect(delta(`apiserver_request_total{verb="LIST",${unknown},code="404"}`)).toBe(1);
    expect(delta(`apiserver_request_total{verb="GET",${unknown},code="404"}`)).toBe(2);
    expect(delta(`apiserver_request_total{verb="GET",${unknown},code="401"}`)).toBe(1);
    expect(after).not.toMatch(/made|widgets/);
  });

  it('counts a watch as it starts, with verb WATCH, and neither times it nor counts its end', async () => {
    const watching = `apiserver_request_total{verb="WATCH",${PEOPLE},subresource="",code="200"}`;
    const upgraded = `apiserver_request_total{verb="WATCH",${PEOPLE},subresource="",code="101"}`;
    const before = await scrape();
    const overHttp = watchHttp(base, `${PERSONS}?watch=true`, { headers: t.adminHeaders });
    const overWebSocket = watchWebSocket(base, PERSONS, { headers: t.adminHeaders });
    await overHttp.until((events) => events.length > 0, 'the HTTP watch to start');
    await overWebSocket.until((events) => events.length > 0, 'the WebSocket watch to start');
    const open = await scrape();
    expect(sample(open, watching) - sample(before, watching)).toBe(1);
    expect(sample(open, upgraded) - sample(before, upgraded)).toBe(1);

    overHttp.close();
    overWebSocket.close();
    await eventually(async () => sample(await scrape(), 'svc_watchers') === 0, 'both watches to end');
    const ended = await scrape();
    expect(sample(ended, watching) - sample(before, watching)).toBe(1);
    expect(sample(ended, upgraded) - sample(before, upgraded)).toBe(1);
    expect(ended).not.toContain('apiserver_request_duration_seconds_count{verb="WATCH"');
  });

  it('counts a watch refused before it starts with its status', async () => {
    const { delta } = await counted(async () => {
      const refused = watchWebSocket(base, PERSONS);
      await refused.ended;
    });
    expect(delta(`apiserver_request_total{verb="WATCH",${PEOPLE},subresource="",code="401"}`)).toBe(1);
  });
});

describe.each(BACKENDS)('svc_build_info (%s)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it("names svc's version, the Node.js running it and the store", async () => {
    const text = (await t.request('GET', '/metrics')).text;
    expect(
      sample(text, `svc_build_info{version="${HOST_VERSION}",node_version="${process.version}",store="${backend}"}`),
    ).toBe(1);
    expect(text).toContain('# TYPE svc_build_info gauge');
  });
});

describe('a server with request metrics off (SVC_REQUEST_METRICS=off)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_REQUEST_METRICS: 'off' } });
  }, 60_000);
  afterAll(() => t.close());

  it('reads SVC_REQUEST_METRICS (default on) and its flag', () => {
    expect(loadConfig({}).requestMetrics).toBe(true);
    expect(loadConfig({ SVC_REQUEST_METRICS: 'off' }).requestMetrics).toBe(false);
    expect(loadConfig(settingsFromArgs(['--request-metrics=false'], {})).requestMetrics).toBe(false);
    expect(() => loadConfig({ SVC_REQUEST_METRICS: 'maybe' })).toThrow('SVC_REQUEST_METRICS must be true or false');
  });

  it('has neither request family, and every other', async () => {
    expect((await t.request('GET', PERSONS)).status).toBe(200);
    const text = (await t.request('GET', '/metrics')).text;
    expect(text).not.toContain('apiserver_request_total');
    expect(text).not.toContain('apiserver_request_duration_seconds');
    expect(text).toContain('svc_build_info{');
    expect(text).toContain('controller_runtime_reconcile_total{');
  });
});
