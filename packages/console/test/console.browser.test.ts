/**
 * The console in a real browser: Debian's Chromium, headless, driven by playwright-core against a real svc (SQLite)
 * listening on a port. Skipped, saying why, only when Chromium is missing outside CI; under CI it must run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startTestServer, TEST_ADMIN, type TestServer } from '../../server/test/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || Boolean(process.env.CI);
if (!available) console.warn(`console browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// Screenshots of each page the tests reach, to look at (test-results/ is not tracked).
const SHOTS = path.join(REPO, 'test-results/console');
const NOBODY = { username: 'nobody', password: 'nobody-password' };

describe.skipIf(!available)('the console in Chromium', () => {
  let t: TestServer;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestServer({ serverOptions: { login: { limits: { perClientAndUser: 2 } } } });
    base = await t.server.listen();
    expect(
      (
        await t.request('POST', '/apis/api.console.svc.run/v1alpha1/users', {
          name: NOBODY.username,
          password: NOBODY.password,
        })
      ).status,
    ).toBe(201);
    // playwright-core gives every launch a fresh, temporary user-data-dir of its own (and refuses one in `args`).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser session (its own cookies). */
  async function visit(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    return { context, page: await context.newPage() };
  }

  async function signIn(page: Page, who: { username: string; password: string }) {
    await page.getByLabel('Username').fill(who.username);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Serious and critical axe-core violations on the page as it is now, by rule id. */
  async function seriousViolations(page: Page): Promise<string[]> {
    // Evaluated over the DevTools protocol: the page's policy (rightly) refuses an injected <script>.
    await page.evaluate(AXE);
    const ids = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } })
        .axe;
      const { violations } = await axe.run();
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
    return ids;
  }

  it('sends a browser from / to the sign-in page, which passes axe', async () => {
    const { context, page } = await visit();
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await page.screenshot({ path: path.join(SHOTS, 'sign-in.png') });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows a wrong password, then the throttle', async () => {
    const { context, page } = await visit();
    await page.goto(`${base}/console/`);
    const wrong = { username: 'mallory', password: 'not-the-password' };
    await signIn(page, wrong);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    await signIn(page, wrong);
    await signIn(page, wrong);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^too many failed sign-in attempts; try again in \d+ seconds$/);
    await context.close();
  });

  it('signs the administrator in, shows the menu and the profile, and signs out', async () => {
    const { context, page } = await visit();
    await page.goto(`${base}/console/`);
    await signIn(page, TEST_ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getByRole('link').allTextContents()).toEqual(['People', 'Users']);
    // v-permission keeps what `*` allows.
    await page.getByText('You may see every user').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'overview-admin.png') });
    expect(await seriousViolations(page)).toEqual([]);

    await menu.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    // HasPermission shows its slot: `*` allows plugin:people:manage.
    await page.getByText('You may manage persons').waitFor();
    await page.getByRole('table', { name: 'Persons' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'people-admin.png') });

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'admin' }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    expect(await page.getByRole('list', { name: 'Roles' }).getByRole('listitem').allTextContents()).toEqual([
      'super-role',
    ]);
    await page.screenshot({ path: path.join(SHOTS, 'profile-admin.png') });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    // The session is over: the console asks for a sign-in again.
    await page.goto(`${base}/console/profile`);
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/profile');
    await context.close();
  });

  it('shows a user with no role no menu entries, and "no permission" on a direct URL', async () => {
    const { context, page } = await visit();
    await page.goto(`${base}/console/users`);
    await signIn(page, NOBODY);
    // Back where they asked to go, which they may not see.
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/users');
    const menu = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getByRole('link').count()).toBe(0);
    await menu.getByText('No pages for your roles yet.').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'no-permission.png') });
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${base}/console/people`);
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    expect(await page.getByText('You may manage persons').count()).toBe(0);
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // v-permission removed what the user may not see.
    expect(await page.getByText('You may see every user').count()).toBe(0);
    await page.goto(`${base}/console/profile`);
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    await page.getByText('none').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
