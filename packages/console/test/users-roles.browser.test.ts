/**
 * Users, roles and access review in a real browser: creating a user, giving roles with the role picker (grouping, no
 * hidden template, transitive ticking with its reason, the effective permissions), the user's menu following their
 * roles, svc's refusal shown in words, disable, password reset and delete; the roles list, a built-in role read-only,
 * a custom role made of templates; access review; and a user who may only view users.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleBinding } from '../../server/test/harness.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const DORA = { username: 'dora', password: 'dora-first-password' };
const VERA = { username: 'vera', password: 'vera-password-123' };

const menuLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
/** Waits until no toast is shown (a fading toast is half transparent, which axe reads as low contrast). */
const noToasts = (page: Page) =>
  expect.poll(() => page.locator('.p-toast-message').count(), { timeout: 10_000 }).toBe(0);
const row = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

describe.skipIf(!browserAvailable)('users, roles and access review in Chromium', () => {
  let c: ConsoleUnderTest;
  let admin: Page;

  beforeAll(async () => {
    c = await startConsole();
    await c.createUser(VERA, ['role-template-view-users']);
    admin = (await c.signedIn(TEST_ADMIN, '/console/users')).page;
  }, 60_000);
  afterAll(() => c?.close());

  it('lists users for the administrator, with every system page in the menu', async () => {
    await admin.getByRole('heading', { name: 'Users' }).waitFor();
    await row(admin, 'vera').waitFor();
    expect(await menuLinks(admin)).toEqual([
      'Persons',
      'Posts',
      'Users',
      'Roles',
      'Access review',
      'Plugins',
      'Audit log',
      'Resources',
    ]);
    expect(await row(admin, 'vera').getByRole('cell').nth(1).textContent()).toBe('Users view');
    await c.shot(admin, 'users-list');
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('shows the groups an administrator gave a user, and the roles they hold through them', async () => {
    await c.createUser({ username: 'gail', password: 'gail-password-123' }, []);
    const patched = await c.t.request(
      'PATCH',
      '/api/v1alpha1/users/gail',
      { spec: { groups: ['team'] } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patched.status).toBe(200);
    const bound = await c.t.request(
      'POST',
      '/api/v1alpha1/rolebindings',
      roleBinding('team-views-users', 'role-template-view-users', { groups: ['team'] }),
    );
    expect(bound.status).toBe(201);
    await admin.reload();
    await row(admin, 'gail').waitFor();
    expect(await row(admin, 'gail').getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['Users view (group team)', 'team']),
    );
    expect(await admin.getByRole('columnheader', { name: 'Groups' }).count()).toBe(1);
  });

  it("creates a user, showing svc's complaint at the field first", async () => {
    await admin.getByRole('button', { name: 'New user' }).click();
    const dialog = admin.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Username').fill(DORA.username);
    await dialog.getByLabel('Display name').fill('Dora Explorer');
    await dialog.getByLabel('Password').fill('short');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('must be at least 8 characters long');
    await dialog.getByLabel('Password').fill(DORA.password);
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Searched by svc, by a part of the display name.
    await admin.getByLabel('Search users').fill('explorer');
    await admin.getByRole('button', { name: 'Search', exact: true }).click();
    await admin.getByRole('table').getByText('1 user matching “explorer”').waitFor();
    expect(await row(admin, 'dora').getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['Dora Explorer', 'none', 'Enabled']),
    );
  });

  it('gives roles with the picker: grouped, no hidden template, dependencies ticked with the reason', async () => {
    await row(admin, 'dora').getByRole('button', { name: 'Roles' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Roles of dora' });
    await dialog.getByRole('group', { name: 'Users' }).waitFor();
    const groups = await dialog.locator('legend').allTextContents();
    expect(groups).toEqual(['Predefined and custom roles', 'Audit', 'People', 'Plugins', 'Posts', 'Roles', 'Users']);
    expect(await dialog.getByRole('group', { name: 'Users' }).getByRole('checkbox').count()).toBe(2);
    // Hidden self-service templates, anonymous and authenticated are never offered.
    expect(await dialog.getByText('Own personal access tokens').count()).toBe(0);
    expect(await dialog.getByLabel('Anonymous', { exact: true }).count()).toBe(0);
    expect(await dialog.getByLabel('Authenticated', { exact: true }).count()).toBe(0);

    const view = dialog.getByRole('checkbox', { name: 'Users view' });
    expect(await view.isChecked()).toBe(false);
    await dialog.getByRole('checkbox', { name: 'Users management' }).check();
    await expect.poll(() => view.isChecked()).toBe(true);
    expect(await view.isDisabled()).toBe(true);
    await dialog.getByText('required by Users management').waitFor();
    const effective = dialog.getByRole('region', { name: 'Effective permissions' });
    await effective.getByRole('list', { name: 'UI permissions' }).getByText('system:users:view').waitFor();
    expect(
      await effective.getByRole('list', { name: 'UI permissions' }).getByRole('listitem').allTextContents(),
    ).toEqual(['system:resources:view', 'system:users:manage', 'system:users:view']);
    await effective.getByRole('cell', { name: 'get, list, watch on users (core group)' }).waitFor();
    await c.shot(admin, 'users-role-picker');
    expect(await c.seriousViolations(admin)).toEqual([]);

    await dialog.getByRole('button', { name: 'Save roles' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => row(admin, 'dora').getByRole('cell').nth(1).textContent()).toBe('Users management');
  });

  it("shows the user exactly what their roles allow, and svc's refusal in words", async () => {
    const { page } = await c.signedIn(DORA, '/console/users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    expect(await menuLinks(page)).toEqual(['Users', 'Resources']);
    await page.getByRole('button', { name: 'New user' }).waitFor();
    // Dora may manage users, but not one who holds more than she does.
    await row(page, 'admin').getByRole('button', { name: 'Disable' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Disabling admin failed' });
    expect(await refusal.textContent()).toMatch(
      /^Disabling admin failed: you may not disable user "admin": they hold role "super-role"/,
    );
    // Shown in full once the message has faded in.
    await expect
      .poll(() => refusal.evaluate((el) => getComputedStyle(el.closest('.p-message') ?? el).opacity))
      .toBe('1');
    await c.shot(page, 'users-refused');
    expect(await c.seriousViolations(page)).toEqual([]);
    // Nor grant what she does not hold: svc's refusal shows under the picker, and nothing is saved.
    await row(page, 'vera').getByRole('button', { name: 'Roles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roles of vera' });
    await dialog.getByRole('checkbox', { name: 'Roles view' }).check();
    await dialog.getByRole('button', { name: 'Save roles' }).click();
    expect(await dialog.getByRole('alert').textContent()).toMatch(
      /^you may not grant role "role-template-view-roles": it grants .*, which you do not hold$/,
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row(page, 'vera').getByRole('cell').nth(1).textContent()).toBe('Users view');
    await page.goto(`${c.base}/console/roles`);
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
  });

  it('disables and enables a user, and resets a password shown once', async () => {
    await row(admin, 'dora').getByRole('button', { name: 'Disable' }).click();
    await row(admin, 'dora').getByText('Disabled').waitFor();
    await row(admin, 'dora').getByRole('button', { name: 'Enable' }).click();
    await row(admin, 'dora').getByText('Enabled').waitFor();

    await row(admin, 'dora').getByRole('button', { name: 'Reset password' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Reset the password of dora' });
    await dialog.getByRole('button', { name: 'Reset password' }).click();
    const shown = dialog.getByTestId('new-password');
    await shown.waitFor();
    const password = (await shown.textContent()) ?? '';
    expect(password).toMatch(/^[A-Za-z0-9]{16}$/);
    await noToasts(admin);
    await c.shot(admin, 'users-password-reset');
    expect(await c.seriousViolations(admin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    // The new password signs dora in; the old one no longer does.
    expect((await c.t.anonymous('POST', '/login', { username: 'dora', password })).status).toBe(200);
    expect((await c.t.anonymous('POST', '/login', DORA)).status).toBe(401);
  });

  it('deletes a user after confirmation', async () => {
    await row(admin, 'dora').getByRole('button', { name: 'Delete' }).click();
    const confirm = admin.getByRole('alertdialog', { name: 'Delete dora?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await admin.getByRole('table').getByText('No users found.').waitFor();
    expect((await c.t.request('GET', '/api/v1alpha1/users/dora')).status).toBe(404);
  });

  it('lists roles without anonymous and authenticated, and shows a built-in role read-only', async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Roles' }).click();
    await admin.getByRole('heading', { name: 'Roles' }).waitFor();
    await admin.getByRole('rowheader', { name: 'Post manager' }).waitFor();
    const names = await admin.getByRole('rowheader').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['Super administrator', 'Guest', 'Post manager', 'Users view']));
    expect(names).not.toContain('Anonymous');
    expect(names).not.toContain('Authenticated');
    expect(names).not.toContain('Own personal access tokens');
    await noToasts(admin);
    await c.shot(admin, 'roles-list');
    expect(await c.seriousViolations(admin)).toEqual([]);

    await admin.getByRole('link', { name: 'Post manager' }).click();
    await admin.getByRole('heading', { name: 'Post manager' }).waitFor();
    await admin.getByText('Built into svc: read-only.').waitFor();
    expect(await admin.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await admin.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    const rules = admin.getByRole('table', { name: 'Rules and where each comes from' });
    await rules.getByRole('row', { name: /on posts, posts\/status \(content\.svc\.run\) its own/ }).waitFor();
    await rules.getByRole('cell', { name: 'Author (required by Post manager)' }).first().waitFor();
    await rules.getByRole('cell', { name: 'Contributor (required by Author)' }).first().waitFor();
    await rules.getByRole('cell', { name: /^Own personal access tokens \(aggregated into Authenticated\)$/ }).waitFor();
    await noToasts(admin);
    await c.shot(admin, 'role-built-in');
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('creates a custom role by ticking templates', async () => {
    await admin.goto(`${c.base}/console/roles`);
    await admin.getByRole('link', { name: 'New role' }).click();
    await admin.getByRole('heading', { name: 'New role' }).waitFor();
    await admin.getByLabel('Name', { exact: true }).fill('Post Helper');
    await admin.getByLabel('Display name').fill('Post helper');
    // Templates only: whole roles are not offered for building a role.
    expect(await admin.getByRole('group', { name: 'Predefined and custom roles' }).count()).toBe(0);
    // Ticked from the keyboard.
    await admin.getByRole('checkbox', { name: 'Posts management' }).focus();
    await admin.keyboard.press('Space');
    await admin.getByRole('button', { name: 'Create role' }).click();
    // svc refuses the name, and says why at the field.
    const nameError = admin.getByRole('alert').filter({ hasText: 'lower' });
    expect(await nameError.textContent()).toMatch(/lower.?case/i);
    await admin.getByLabel('Name', { exact: true }).fill('post-helper');
    await expect.poll(() => admin.getByRole('checkbox', { name: 'Posts view' }).isChecked()).toBe(true);
    await admin.getByText('required by Posts management').waitFor();
    await c.shot(admin, 'role-create');
    expect(await c.seriousViolations(admin)).toEqual([]);
    await admin.getByRole('button', { name: 'Create role' }).click();

    await admin.getByRole('heading', { name: 'Post helper' }).waitFor();
    await admin.getByRole('link', { name: 'Edit' }).waitFor();
    await admin.getByRole('cell', { name: 'Posts view (required by Posts management)' }).waitFor();
    await admin.getByRole('cell', { name: 'Posts management (required by Post helper)' }).first().waitFor();
    const stored = (await c.t.request('GET', '/api/v1alpha1/roles/post-helper')).body;
    expect(stored.metadata.annotations['rbac.authorization.svc.run/dependencies']).toBe(
      '["role-template-manage-posts"]',
    );
    expect(stored.rules).toEqual([]);
    await noToasts(admin);
    await c.shot(admin, 'role-custom');
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('edits a custom role and deletes it after confirmation', async () => {
    await admin.getByRole('link', { name: 'Edit' }).click();
    await admin.getByRole('heading', { name: 'Edit role post-helper' }).waitFor();
    const manage = admin.getByRole('checkbox', { name: 'Posts management' });
    await expect.poll(() => manage.isChecked()).toBe(true);
    await admin.getByRole('checkbox', { name: 'Users view' }).check();
    await admin.getByRole('button', { name: 'Save role' }).click();
    await admin.getByRole('heading', { name: 'Post helper' }).waitFor();
    await admin.getByRole('cell', { name: 'Users view (required by Post helper)' }).first().waitFor();

    await admin.getByRole('button', { name: 'Delete' }).click();
    await admin
      .getByRole('alertdialog', { name: 'Delete role post-helper?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await admin.getByRole('heading', { name: 'Roles' }).waitFor();
    expect(await admin.getByRole('link', { name: 'Post helper' }).count()).toBe(0);
    expect((await c.t.request('GET', '/api/v1alpha1/roles/post-helper')).status).toBe(404);
  });

  it('answers an access review, allowed and denied, with the role and rule that decided', async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access review' }).click();
    await admin.getByRole('heading', { name: 'Access review' }).waitFor();
    await admin.getByLabel('User').fill('vera');
    await admin.getByLabel('Path').fill('/api/v1alpha1/users');
    await admin.getByRole('button', { name: 'Check' }).click();
    const answer = admin.getByRole('region', { name: 'Allowed' });
    await answer.waitFor();
    await answer.getByText('Users view (role-template-view-users)').waitFor();
    await answer
      .getByText(
        'allowed by role "role-template-view-users" rule 0 (verbs=get,list,watch apiGroups="" resources=users)',
      )
      .waitFor();
    await answer.getByText('get, list, watch on users (core group)').waitFor();
    await noToasts(admin);
    await c.shot(admin, 'access-review-allowed');
    expect(await c.seriousViolations(admin)).toEqual([]);

    await admin.getByRole('combobox', { name: 'Method' }).click();
    await admin.getByRole('option', { name: 'DELETE' }).click();
    // The list of options closes (its focus traps go with it).
    await expect.poll(() => admin.locator('.p-select-overlay').count()).toBe(0);
    await admin.getByLabel('Path').fill('/api/v1alpha1/users/admin');
    await admin.getByRole('button', { name: 'Check' }).click();
    const denied = admin.getByRole('region', { name: 'Denied' });
    await denied.waitFor();
    expect(await denied.getByRole('definition').allTextContents()).toEqual([
      'vera',
      'no rule allowed delete on users "admin" in group ""',
    ]);
    await c.shot(admin, 'access-review-denied');
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('pages the users svc found, 20 at a time', async () => {
    for (let i = 1; i <= 25; i++)
      await c.createUser({ username: `pager-${String(i).padStart(2, '0')}`, password: 'pager-password' });
    await admin.goto(`${c.base}/console/users`);
    await admin.getByLabel('Search users').fill('pager-');
    await admin.getByRole('button', { name: 'Search', exact: true }).click();
    await admin.getByRole('table').getByText('25 users matching “pager-”').waitFor();
    expect(await admin.getByRole('rowheader').count()).toBe(20);
    await admin.getByRole('button', { name: 'Next Page' }).click();
    await row(admin, 'pager-25').waitFor();
    expect(await admin.getByRole('rowheader').allTextContents()).toEqual([
      'pager-21',
      'pager-22',
      'pager-23',
      'pager-24',
      'pager-25',
    ]);
    await noToasts(admin);
    expect(await c.seriousViolations(admin)).toEqual([]);
  });

  it('shows a user who may only view users the list without write buttons, and no Roles menu', async () => {
    const { page } = await c.signedIn(VERA, '/console/users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await row(page, 'admin').waitFor();
    expect(await menuLinks(page)).toEqual(['Users', 'Resources']);
    for (const name of ['New user', 'Roles', 'Disable', 'Reset password', 'Delete'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await page.getByRole('columnheader').allTextContents()).toEqual([
      'Username',
      'Display name',
      'Roles',
      'Groups',
      'Status',
    ]);
    await c.shot(page, 'users-viewer');
    expect(await c.seriousViolations(page)).toEqual([]);
    await page.goto(`${c.base}/console/access-review`);
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
  });
});
