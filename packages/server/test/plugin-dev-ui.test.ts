/**
 * A plugin UI served from its author's Vite dev server (`svc plugin dev --ui URL`): only when the server allows that
 * origin (SVC_PLUGIN_DEV_ORIGINS, unset by default) does the console list the dev entry and its policy let the page
 * load it; otherwise the annotation changes nothing.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'plugins-ui');
const UIS = '/apis/api.console.svc.run/v1alpha1/plugins/-/uis';
const PLUGIN = '/apis/plugin.svc.run/v1alpha1/plugins/hello-ui';
const DEV = 'http://localhost:5173';
const MERGE = { 'content-type': 'application/merge-patch+json' };

const annotate = (t: TestServer, url: string | null) =>
  t.request('PATCH', PLUGIN, JSON.stringify({ metadata: { annotations: { 'plugin.svc.run/dev-ui': url } } }), MERGE);
const entryOf = async (t: TestServer) =>
  (await t.request('GET', UIS)).body.items.find((ui: { name: string }) => ui.name === 'hello-ui')?.entry as string;
const policyOf = async (t: TestServer) =>
  String(
    (await t.anonymous('GET', '/console/', undefined, { accept: 'text/html' })).headers['content-security-policy'],
  );

describe('plugin UIs from a Vite dev server', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('loads the dev entry when the server allows its origin, and the bundle again once the loop ends', async () => {
    t = await startTestServer({ pluginsDirs: [FIXTURES], env: { SVC_PLUGIN_DEV_ORIGINS: DEV } });
    expect(await entryOf(t)).toMatch(/^\/plugins\/hello-ui\/ui\/[^/]+\/main\.js$/);
    expect((await annotate(t, `${DEV}/src/index.ts`)).status).toBe(200);
    expect(await entryOf(t)).toBe(`${DEV}/src/index.ts`);
    const policy = await policyOf(t);
    expect(policy).toMatch(new RegExp(`script-src 'self' 'nonce-[^']+' ${DEV}(;|$)`));
    expect(policy).toContain(`connect-src 'self' ${DEV} ws://localhost:5173`);

    // Another origin than the allowed one is ignored.
    expect((await annotate(t, 'http://evil.example:5173/src/index.ts')).status).toBe(200);
    expect(await entryOf(t)).toMatch(/^\/plugins\/hello-ui\/ui\//);
    expect((await annotate(t, null)).status).toBe(200);
    expect(await entryOf(t)).toMatch(/^\/plugins\/hello-ui\/ui\//);
  });

  it('ignores the annotation, and keeps the policy to svc alone, by default', async () => {
    t = await startTestServer({ pluginsDirs: [FIXTURES] });
    expect((await annotate(t, `${DEV}/src/index.ts`)).status).toBe(200);
    expect(await entryOf(t)).toMatch(/^\/plugins\/hello-ui\/ui\/[^/]+\/main\.js$/);
    const policy = await policyOf(t);
    expect(policy).not.toContain('localhost:5173');
    expect(policy).not.toContain('connect-src');
  });
});
