import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, PEOPLE_PLUGINS, PERSONS, pluginReport, startTestServer, type TestServer } from './harness.js';

const BAD = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-bad');

describe('plugins loaded at boot', () => {
  let t: TestServer;
  const capture = capturingLogger();
  const phase = (name: string) => pluginReport(t, name);

  beforeAll(async () => {
    t = await startTestServer({
      pluginsDirs: [PEOPLE_PLUGINS, BAD],
      logger: capture.logger,
      pluginStartTimeoutMs: 500,
    });
  });
  afterAll(() => t.close());

  it('starts the good plugins and keeps serving whatever the bad ones do', async () => {
    expect((await phase('people')).phase).toBe('STARTED');
    expect((await t.request('GET', `${PERSONS}/ada`)).status).toBe(200);
  });

  it('does not mount a custom route without <group>/<version>, and warns naming it', async () => {
    expect((await phase('no-api-version')).phase).toBe('STARTED');
    expect((await t.request('GET', '/apis/api.no-api-version.svc.run/v1/found')).body).toEqual({ found: true });
    const warnings = capture
      .lines()
      .filter((l) => l.level === 40)
      .map((l) => String(l.msg));
    expect(warnings.some((w) => w.includes('/lost') && w.includes('not mounted'))).toBe(true);
  });

  it("fails a plugin that declares a model in another plugin's group", async () => {
    expect(await phase('foreign-group')).toMatchObject({
      phase: 'FAILED',
      message: expect.stringMatching(/people\.svc\.run/),
    });
  });

  it('fails a plugin whose extensions use an unprefixed label key, naming the object and key, and undoes its start', async () => {
    expect(await phase('unprefixed-label')).toMatchObject({
      phase: 'FAILED',
      message: expect.stringMatching(/bad-note.*color|color.*bad-note/s),
    });
    expect((await t.request('GET', '/apis/api.unprefixed-label.svc.run/v1/hello')).status).toBe(404);
    expect((await t.request('GET', '/apis/unprefixed-label.svc.run/v1/notes')).status).toBe(404);
  });

  it('fails a plugin whose start throws, with the reason, and unregisters what it registered', async () => {
    expect(await phase('throws')).toMatchObject({ phase: 'FAILED', message: expect.stringMatching(/unreachable/) });
    expect((await t.request('GET', '/apis/throws.svc.run/v1/booms')).status).toBe(404);
  });

  it('fails a plugin whose start hangs', async () => {
    expect(await phase('hangs')).toMatchObject({
      phase: 'FAILED',
      message: expect.stringMatching(/did not finish within 500 ms/),
    });
  });

  it('fails a plugin that requires a missing plugin, naming it', async () => {
    expect(await phase('needs-missing')).toMatchObject({ phase: 'FAILED', message: expect.stringMatching(/nowhere/) });
  });
});
