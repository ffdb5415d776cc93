/**
 * What every console browser test needs: a real svc (SQLite) listening on a port, Debian's Chromium driven headless
 * by playwright-core, signing in through the page, axe-core in the page, and screenshots to look at. One svc and one
 * browser per test file; each `visit()` is a fresh browser session (its own cookies).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { REPO, startTestServer, TEST_ADMIN, type TestServer } from '../../server/test/harness.js';

export { TEST_ADMIN };

export const CHROMIUM = '/usr/bin/chromium';
/** Browser tests run when Chromium is installed, and always under CI (where a missing browser must fail). */
export const browserAvailable = existsSync(CHROMIUM) || Boolean(process.env.CI);
if (!browserAvailable)
  console.warn(`console browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Screenshots of the pages the tests reach, to look at (test-results/ is not tracked). */
export const SHOTS = path.join(REPO, 'test-results/console');

export interface Credentials {
  username: string;
  password: string;
}

export interface VisitOptions {
  locale?: string;
  viewport?: { width: number; height: number };
}

export interface ConsoleUnderTest {
  t: TestServer;
  /** `http://127.0.0.1:<port>` */
  base: string;
  browser: Browser;
  /**
   * A fresh browser session (its own cookies), with a page: in English at 1280 × 800 unless `options` say otherwise
   * (`locale` is the browser's language, which the console's first language follows).
   */
  visit(options?: VisitOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** Fills and sends the sign-in form on the page as it is. */
  signIn(page: Page, who: Credentials): Promise<void>;
  /** Opens `/console/…` in a fresh session, signs in, and waits for the console's main menu. */
  signedIn(who: Credentials, at?: string, options?: VisitOptions): Promise<{ context: BrowserContext; page: Page }>;
  /**
   * Serious and critical axe-core violations on the page as it is now, by rule id and the first offending target;
   * `within` (a CSS selector) checks only that part, such as an open modal dialog, whose mask dims the page behind it.
   */
  seriousViolations(page: Page, within?: string): Promise<string[]>;
  /**
   * Opens `url` (`/console/…` or `/uc/…`) inside the running app, as a click on a link does (the console's router,
   * no reload), and returns once the router has shown it. For tests about the pages, not about loading them.
   */
  navigate(page: Page, url: string): Promise<void>;
  /** Saves `test-results/console/<name>.png`. */
  shot(page: Page, name: string): Promise<void>;
  /** Creates a user with these roles through the API, as the administrator. */
  createUser(who: Credentials, roles?: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startConsole(options: Parameters<typeof startTestServer>[0] = {}): Promise<ConsoleUnderTest> {
  mkdirSync(SHOTS, { recursive: true });
  const t = await startTestServer(options);
  const base = await t.server.listen();
  // playwright-core gives every launch a fresh, temporary user-data-dir of its own (and refuses one in `args`).
  const browser = await chromium.launch({
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
  const contexts: BrowserContext[] = [];

  const visit = async (options: VisitOptions = {}) => {
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1280, height: 800 },
      locale: options.locale ?? 'en-US',
    });
    contexts.push(context);
    // Well under the test's own timeout, so a failure names the locator that never appeared.
    context.setDefaultTimeout(10_000);
    return { context, page: await context.newPage() };
  };
  const signIn = async (page: Page, who: Credentials) => {
    await page.getByLabel('Username').fill(who.username);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  return {
    t,
    base,
    browser,
    visit,
    signIn,
    async signedIn(who, at = '/console/', options = {}) {
      const session = await visit(options);
      await session.page.goto(`${base}${at}`);
      await signIn(session.page, who);
      await session.page.getByRole('navigation', { name: 'Main' }).waitFor();
      return session;
    },
    async seriousViolations(page, within) {
      // Evaluated over the DevTools protocol: the page's policy (rightly) refuses an injected <script>. Once per
      // document: a page the test moved through in the app (navigate) still has it.
      if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
      return page.evaluate(async (selector) => {
        type Violation = { id: string; impact: string; nodes: { target: string[] }[] };
        type Axe = { run(context?: string | Document): Promise<{ violations: Violation[] }> };
        const axe = (window as unknown as { axe: Axe }).axe;
        // Judged as the user sees the page once it has settled: a toast still fading in has the contrast of a
        // half-transparent one (seen when the suite ran fast enough to check within its transition).
        // (Endless ones, a spinner's, are left running; so are those a scroll position drives, as a wide table's fade,
        // which end only when the user scrolls.)
        const ending = document
          .getAnimations()
          .filter((a) => a.timeline === document.timeline && a.effect?.getComputedTiming().endTime !== Infinity);
        await Promise.all(ending.map((animation) => animation.finished.catch(() => undefined)));
        const { violations } = await axe.run(selector ?? document);
        return violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes[0]?.target.join(' ')})`);
      }, within);
    },
    async navigate(page, url) {
      await page.evaluate(async (to) => {
        type Router = { push(to: string): Promise<unknown>; currentRoute: { value: { fullPath: string } } };
        const app = (document.querySelector('#app') as unknown as { __vue_app__?: any })?.__vue_app__;
        const router = app?.config.globalProperties.$router as Router | undefined;
        if (!router) throw new Error('no console app on the page to navigate in');
        await router.push(to);
        // The new page renders in Vue's next flush, after the navigation's promise settles.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }, url);
      const now = new URL(page.url());
      const wanted = new URL(url, base);
      if (now.pathname.replace(/\/$/, '') !== wanted.pathname.replace(/\/$/, ''))
        throw new Error(`navigating to ${url} ended at ${now.pathname}`);
    },
    async shot(page, name) {
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    },
    async createUser(who, roles = []) {
      const created = await t.request('POST', '/apis/api.console.svc.run/v1alpha1/users', {
        name: who.username,
        password: who.password,
        roles,
      });
      if (created.status !== 201) throw new Error(`creating ${who.username}: ${created.status} ${created.text}`);
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await t.close();
    },
  };
}
