/**
 * The console's frame in a real browser: the redirect from `/`, sign-in and its errors, the menu by UI permissions,
 * "No permission", the personal center's link, sign-out, and the page's Content-Security-Policy holding (nothing it
 * refuses is needed: the component library's styles carry the nonce).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const NOBODY = { username: 'nobody', password: 'nobody-password' };

describe.skipIf(!browserAvailable)('the console in Chromium', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole({ serverOptions: { login: { limits: { perClientAndUser: 2 } } } });
    await c.createUser(NOBODY);
  }, 60_000);
  afterAll(() => c?.close());

  it('sends a browser from / to the sign-in page, styled under its policy, which passes axe', async () => {
    const { page } = await c.visit();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`${c.base}/`);
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/login');
    // PrimeVue's theme (the stylesheet the build makes of it) applies: the button gets its primary colour, not the
    // browser's grey.
    const background = await page
      .getByRole('button', { name: 'Sign in' })
      .evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(background).not.toBe('rgb(239, 239, 239)');
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    // …and PrimeVue injects no <style> of its own: neither the theme nor its core rules (src/main.ts).
    const injected = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLStyleElement>('style[data-primevue-style-id]')].map(
        (style) => style.dataset.primevueStyleId,
      ),
    );
    expect(injected).toEqual([]);
    expect(refused).toEqual([]);
    await c.shot(page, 'sign-in');
    expect(await c.seriousViolations(page)).toEqual([]);
  });

  it('shows a wrong password, then the throttle', async () => {
    const { page } = await c.visit();
    await page.goto(`${c.base}/console/`);
    const wrong = { username: 'mallory', password: 'not-the-password' };
    await c.signIn(page, wrong);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    await c.signIn(page, wrong);
    await c.signIn(page, wrong);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^too many failed sign-in attempts; try again in \d+ seconds$/);
  });

  it('signs the administrator in, shows the menu and the personal center, and signs out', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getByRole('link').allTextContents()).toEqual([
      'Persons',
      'Posts',
      'Users',
      'Roles',
      'Access review',
      'Plugins',
      'Audit log',
      'Resources',
    ]);
    // v-permission keeps what `*` allows.
    await page.getByText('You may see every user').waitFor();
    // The commands of the installed `svc`, naming this server.
    await page.getByText("From a terminal where svc is installed (in svc's checkout: npx svc):").waitFor();
    expect(await page.locator('pre code').textContent()).toBe(
      `svc login ${c.base}\nsvc get users\nsvc kubeconfig -o svc.kubeconfig`,
    );
    await c.shot(page, 'overview-admin');
    expect(await c.seriousViolations(page)).toEqual([]);

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Personal center' }).click();
    await page.getByRole('heading', { name: 'Personal center' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/uc');
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    // The session is over: the console asks for a sign-in again, and comes back after it.
    await page.goto(`${c.base}/uc/`);
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/uc/');
    await c.signIn(page, TEST_ADMIN);
    await page.getByRole('heading', { name: 'Personal center' }).waitFor();
  });

  it('works from the keyboard alone: sign in, skip to the content, follow the menu, sign out', async () => {
    const { page } = await c.visit();
    await page.goto(`${c.base}/console/`);
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    // The username field has focus on arrival; Tab moves to the password, Enter sends the form.
    await page.keyboard.type(TEST_ADMIN.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(TEST_ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The first Tab reaches the skip link, which moves focus to the page.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('content');
    // Tab through the account bar to the menu's Users link and follow it; focus lands on the new page.
    const reached: string[] = [];
    await page.getByRole('link', { name: 'svc console' }).focus();
    for (let i = 0; i < 12 && reached.at(-1) !== 'Users'; i++) {
      await page.keyboard.press('Tab');
      // A <select>'s text is all its options (the header's Language switch): say which element it is instead.
      const name = await page.evaluate(() =>
        document.activeElement?.tagName === 'SELECT' ? 'select' : document.activeElement?.textContent,
      );
      reached.push(name?.trim() ?? '');
    }
    expect(reached).toEqual([
      'Search (Ctrl+K)',
      'admin',
      'Personal center',
      'Sign out',
      'select',
      'Persons',
      'Posts',
      'Users',
    ]);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('content');
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
  });

  it('shows a user with no role no menu entries, and "No permission" on a direct URL', async () => {
    const { page } = await c.visit();
    await page.goto(`${c.base}/console/users`);
    await c.signIn(page, NOBODY);
    // Back where they asked to go, which they may not see.
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/users');
    const menu = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getByRole('link').count()).toBe(0);
    await menu.getByText('No pages for your roles yet.').waitFor();
    await c.shot(page, 'no-permission');
    expect(await c.seriousViolations(page)).toEqual([]);

    // The people plugin's page (its UI is loaded for every signed-in user; its route's permissions guard it).
    await page.goto(`${c.base}/console/persons`);
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    expect(await page.getByRole('table', { name: 'Persons' }).count()).toBe(0);
    await page.goto(`${c.base}/console/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // v-permission removed what the user may not see.
    expect(await page.getByText('You may see every user').count()).toBe(0);
  });
});
