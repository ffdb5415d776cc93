/**
 * Console sign-in with the identity provider in a real browser: "Sign in with Test IdP" goes through the test
 * issuer (HTTPS with its own CA; this test's browser contexts alone ignore certificate errors) and lands signed in;
 * neither the administrator's Users page nor the user's own password page offers a password for that user, and the
 * Users page lists the provider's groups as the provider's; signing out ends the provider's session too; the
 * provider's refusal is shown on the sign-in page; and with local sign-in off the page offers only the provider's
 * button.
 */
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../../server/test/oidc-issuer.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const CLIENT_ID = 'svc-console';
/** oidc:alice's User object: its slug and 12 hex digits of sha256("oidc:alice"). */
const ALICE_OBJECT = 'oidc-alice-edbcc36c119b';

/** A port free now, for svc: the provider sends the browser back to a URL registered before svc starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function consoleWithProvider(issuer: TestIssuer, env: Record<string, string> = {}) {
  const port = await freePort();
  return startConsole({
    pluginsDirs: [],
    env: {
      SVC_PORT: String(port),
      SVC_OIDC_ISSUER_URL: issuer.url,
      SVC_OIDC_CLIENT_ID: CLIENT_ID,
      SVC_OIDC_CA_FILE: issuer.caFile,
      SVC_OIDC_REDIRECT_URL: `http://127.0.0.1:${port}/login/oidc/callback`,
      SVC_OIDC_PROVIDER_NAME: 'Test IdP',
      ...env,
    },
    ...(env.SVC_LOCAL_SIGN_IN === 'false' ? { credentials: 'none' as const } : {}),
  });
}

/** A fresh browser session that accepts the test issuer's certificate (made by a CA only the test knows). */
async function providerVisit(c: ConsoleUnderTest): Promise<Page> {
  const context = await c.browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US' });
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

describe.skipIf(!browserAvailable)('console sign-in with the identity provider in Chromium', () => {
  let issuer: TestIssuer;
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    issuer = await startIssuer(CLIENT_ID);
    c = await consoleWithProvider(issuer);
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await issuer?.close();
  });

  it('signs in through the provider and lands on the console', async () => {
    issuer.signInAs({ sub: 'alice', groups: ['devs'], name: 'Alice Liddell' });
    const page = await providerVisit(c);
    await page.goto(`${c.base}/console/`);
    await page.getByLabel('Username').waitFor();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByText('Signed in as oidc:alice').waitFor();
    await c.shot(page, 'oidc-signed-in');
    // The personal center has no password form for them: the provider keeps it.
    await page.goto(`${c.base}/uc/password`);
    await page
      .getByText(
        'You sign in with the identity provider as oidc:alice; svc keeps no password for you. Change it there.',
      )
      .waitFor();
    expect(await page.getByLabel('Current password').count()).toBe(0);
    await page.context().close();
  });

  it("shows the provider's user on the Users page with no password to reset", async () => {
    const { page: admin } = await c.signedIn(TEST_ADMIN, '/console/users');
    const alice = admin.getByRole('row').filter({ hasText: ALICE_OBJECT });
    await alice.waitFor();
    expect(await alice.getByRole('rowheader').textContent()).toMatch(
      /oidc-alice-edbcc36c119b\s*Single sign-on\s*oidc:alice/,
    );
    expect(await alice.getByRole('cell').first().textContent()).toBe('Alice Liddell');
    // Her groups are the provider's (recorded at sign-in), marked so; no administrator set any.
    expect(await alice.getByRole('cell').nth(2).textContent()).toBe('oidc:devs (from the identity provider)');
    const buttons = await alice.getByRole('button').allTextContents();
    expect(buttons.map((b) => b.trim())).toEqual(['Roles', 'Disable', 'Delete']);
    // A local user keeps their reset.
    const own = admin.getByRole('row').filter({ has: admin.getByRole('rowheader', { name: 'admin', exact: true }) });
    expect(await own.getByRole('button', { name: 'Reset password' }).count()).toBe(1);
    await c.shot(admin, 'oidc-users-list');
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('signs out at the provider too, and lands back on the sign-in page', async () => {
    issuer.signInAs({ sub: 'alice', groups: ['devs'] });
    const page = await providerVisit(c);
    await page.goto(`${c.base}/console/login`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByText('Signed in as oidc:alice').waitFor();
    const before = issuer.logouts().length;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${c.base}/console/login`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    const [logout] = issuer.logouts().slice(before);
    expect(logout?.post_logout_redirect_uri).toBe(`${c.base}/console/login`);
    expect(logout?.client_id).toBe(CLIENT_ID);
    const claims = JSON.parse(Buffer.from(logout!.id_token_hint!.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sub).toBe('alice');
    expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('SVC_SESSION');
    await page.context().close();
  });

  it("shows the provider's refusal on the sign-in page, signed out", async () => {
    issuer.deny('access_denied');
    try {
      const page = await providerVisit(c);
      await page.goto(`${c.base}/console/login`);
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain(
        'Sign-in with Test IdP failed: the provider refused the sign-in: access_denied (the test issuer was told to deny)',
      );
      expect(new URL(page.url()).pathname).toBe('/console/login');
      expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('SVC_SESSION');
      await page.context().close();
    } finally {
      issuer.deny(undefined);
    }
  });
});

describe.skipIf(!browserAvailable)('console with local sign-in off in Chromium', () => {
  let issuer: TestIssuer;
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    issuer = await startIssuer(CLIENT_ID);
    c = await consoleWithProvider(issuer, { SVC_LOCAL_SIGN_IN: 'false' });
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    await issuer?.close();
  });

  it('offers only the provider, in English and Chinese', async () => {
    const page = await providerVisit(c);
    await page.goto(`${c.base}/console/login`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    expect(await page.getByLabel('Username').count()).toBe(0);
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
    await c.shot(page, 'oidc-only-sign-in');
    expect(await c.seriousViolations(page)).toEqual([]);
    const { page: zh } = await c.visit({ locale: 'zh-CN' });
    await zh.goto(`${c.base}/console/login`);
    await zh.getByRole('link', { name: '使用 Test IdP 登录' }).waitFor();
    await page.context().close();
  });
});
