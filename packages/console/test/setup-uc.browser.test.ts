/**
 * First run and the personal center in a real browser: svc started on an empty store without SVC_ADMIN_PASSWORD
 * prints a setup link; its page creates the administrator, who lands signed in; the link then no longer works. Then
 * the personal center: profile, a password change (a wrong current password at its field), and a personal access
 * token shown once, used by a program, listed with its last use, revoked and deleted.
 */
import { SvcApiError, SvcClient } from '@svc/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole } from './browser-harness.js';

const ROOT = { username: 'root', password: 'root-first-password' };
const NEW_PASSWORD = 'root-second-password';
const ME = '/apis/api.console.svc.run/v1alpha1/users/-/permissions';

/**
 * Until the page's transitions (a dialog fading in or out) are over, so a screenshot shows where they end; those a
 * scroll position drives (a wide table's fade) end only when the user scrolls.
 */
const settled = (page: Page) =>
  page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (a) =>
          a.timeline !== document.timeline ||
          a.playState !== 'running' ||
          a.effect?.getComputedTiming().endTime === Number.POSITIVE_INFINITY,
      ),
  );

describe.skipIf(!browserAvailable)('first-run setup and the personal center in Chromium', () => {
  let c: ConsoleUnderTest;
  const printed: string[] = [];
  let link = '';
  /** The administrator's signed-in page, kept from the setup on. */
  let page: Page;

  beforeAll(async () => {
    c = await startConsole({
      pluginsDirs: [],
      // An empty SVC_ADMIN_PASSWORD counts as unset: nobody is created, and svc prints the setup link.
      env: { SVC_ADMIN_PASSWORD: '' },
      credentials: 'none',
      serverOptions: { announce: (text) => void printed.push(text) },
    });
    link = /^svc setup: (\S+)$/m.exec(printed.join(''))?.[1] ?? '';
  }, 60_000);
  afterAll(() => c?.close());

  it('prints the link to the setup page, and the sign-in page points to it', async () => {
    expect(link.startsWith(`${c.base}/console/setup#token=`)).toBe(true);
    const { page: signIn } = await c.visit();
    await signIn.goto(`${c.base}/console/login`);
    await signIn.getByText('svc has no administrator yet.', { exact: false }).waitFor();
    await settled(signIn);
    await c.shot(signIn, 'setup-sign-in-hint');
    expect(await c.seriousViolations(signIn)).toEqual([]);
  });

  it('creates the administrator from the link, who lands signed in', async () => {
    ({ page } = await c.visit());
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set up svc' }).waitFor();
    // The token is taken off the address bar at once.
    await expect.poll(() => new URL(page.url()).hash).toBe('');
    expect(new URL(page.url()).pathname).toBe('/console/setup');
    await settled(page);
    await c.shot(page, 'setup-form');
    expect(await c.seriousViolations(page)).toEqual([]);

    await page.getByLabel('Username').fill(ROOT.username);
    await page.getByLabel('Password', { exact: true }).fill(ROOT.password);
    await page.getByLabel('Confirm password').fill('something else');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByText('The passwords do not match.').waitFor();
    expect(await page.getByLabel('Confirm password').getAttribute('aria-describedby')).toBe('setup-confirmation-error');

    // svc's own check, shown at the field.
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm password').fill('short');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.getByText('Password must be at least 8 characters long').waitFor();
    await settled(page);
    await c.shot(page, 'setup-errors');
    expect(await c.seriousViolations(page)).toEqual([]);

    // From the keyboard: Enter in the last field sends the form.
    await page.getByLabel('Password', { exact: true }).fill(ROOT.password);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ROOT.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    const account = page.getByRole('navigation', { name: 'Account' });
    expect(await account.getByRole('link').first().textContent()).toBe('root');
    expect(c.t.server.authn.users.exists('root')).toBe(true);
  });

  it('says setup is done when the link is opened again, and links to sign-in', async () => {
    const { page: again } = await c.visit();
    await again.goto(link);
    await again.getByText('Setup is done: svc has its administrator.').waitFor();
    expect(await again.getByRole('textbox').count()).toBe(0);
    await settled(again);
    await c.shot(again, 'setup-done');
    expect(await c.seriousViolations(again)).toEqual([]);
    await again.getByRole('link', { name: 'Sign in' }).click();
    await again.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    expect(await again.getByText('svc has no administrator yet.', { exact: false }).count()).toBe(0);
  });

  it('shows the profile in the personal center, whose menu lists its pages', async () => {
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Personal center' }).click();
    await page.getByRole('heading', { name: 'Personal center' }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    // One's own account first; what roles add (a super administrator's `*` allows "My posts") after it.
    expect(await menu.getByRole('link').allTextContents()).toEqual([
      'Profile',
      'Password',
      'Access tokens',
      'My posts',
    ]);
    await menu.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    const profile = page.getByRole('main');
    await profile.getByText('Super administrator').waitFor();
    expect(await profile.getByRole('list', { name: 'Roles' }).textContent()).toBe('super-role');
    await settled(page);
    await c.shot(page, 'uc-profile');
    expect(await c.seriousViolations(page)).toEqual([]);
  });

  it('changes the password: a wrong current one is said at its field', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Password' }).click();
    await page.getByRole('heading', { name: 'Password' }).waitFor();
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password.').waitFor();
    expect(await page.getByLabel('Current password').getAttribute('aria-describedby')).toBe('old-password-error');
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    await settled(page);
    await c.shot(page, 'uc-password-error');
    expect(await c.seriousViolations(page)).toEqual([]);

    await page.getByLabel('Current password').fill(ROOT.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').getByText('Your other sessions were signed out', { exact: false }).waitFor();
    await settled(page);
    await c.shot(page, 'uc-password-changed');
    expect(await c.seriousViolations(page)).toEqual([]);
    // The new password signs in; the old one no longer does.
    expect((await c.t.anonymous('POST', '/login', { username: 'root', password: NEW_PASSWORD })).status).toBe(200);
    expect((await c.t.anonymous('POST', '/login', { username: 'root', password: ROOT.password })).status).toBe(401);
  });

  it('creates a token shown once, lists its last use, and revokes and deletes it', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: c.base });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access tokens' }).click();
    await page.getByRole('heading', { name: 'Personal access tokens' }).waitFor();
    await page.getByText('No tokens yet.').waitFor();
    await page.getByLabel('Name').fill('tour');
    // No role ticked: the form says what a token without roles could do, and makes none.
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('alert').filter({ hasText: 'Tick at least one role' }).waitFor();
    await page.getByRole('checkbox', { name: 'super-role' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();

    await page.getByRole('heading', { name: 'Your new token "tour"' }).waitFor();
    const value = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(value).toMatch(/^pat_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    const row = page.getByRole('row', { name: /^tour/ });
    const cells = async () => (await row.getByRole('cell').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(await cells()).toEqual([
      'tour',
      'super-role',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      'never',
      'Active',
      'Revoke tourDelete tour',
    ]);
    await settled(page);
    await c.shot(page, 'uc-token-created');
    expect(await c.seriousViolations(page)).toEqual([]);

    // Shown once: gone after "Done", and not in the list's answers.
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(value).count()).toBe(0);

    // A program uses it; the list then says when.
    const program = new SvcClient({ baseUrl: c.base, token: value });
    expect((await program.request<{ username: string }>('GET', ME)).username).toBe('root');
    await expect
      .poll(async () => {
        await page.reload();
        return row.getByRole('cell').nth(4).textContent();
      })
      .toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);

    await row.getByRole('button', { name: 'Revoke tour' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Revoke "tour"?' });
    await settled(page);
    await c.shot(page, 'uc-token-revoke-confirm');
    expect(await c.seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await row.getByRole('button', { name: 'Revoke tour' }).count()).toBe(0);
    const refused = await program.request('GET', ME).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect((refused as SvcApiError).status).toBe(401);
    await settled(page);
    await c.shot(page, 'uc-token-revoked');
    expect(await c.seriousViolations(page)).toEqual([]);

    await row.getByRole('button', { name: 'Delete tour' }).click();
    await page.getByRole('alertdialog', { name: 'Delete "tour"?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No tokens yet.').waitFor();
  });
});
