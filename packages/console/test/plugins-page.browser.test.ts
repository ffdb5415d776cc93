/**
 * The Plugins page in a real browser: the list follows the Plugin objects live (the client's informer), a plugin
 * archive built here is uploaded, enabled, disabled, changed by another client, upgraded and uninstalled (keeping its
 * data, then deleting it), each with a confirmation naming it; its detail shows its manifest, logs and role templates.
 * A user without the plugins UI permission sees neither the menu entry nor the page.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flipArchive } from '../../server/test/flip-plugin.js';
import { multipart, tgzOf } from '../../server/test/plugin-archives.js';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const NOBODY = { username: 'nobody', password: 'nobody-password' };
const VIEWER = { username: 'plugin-viewer', password: 'plugin-viewer-password' };
const STATE = '/apis/api.console.svc.run/v1alpha1/plugins/greeter/plugin-state';
const GREETER = '/apis/plugin.svc.run/v1alpha1/plugins/greeter';
const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../server/test/fixtures');

/** A small plugin: it logs a line when it starts, registers a model and declares one of its objects and a template. */
async function greeter(into: string, version: string): Promise<string> {
  const folder = path.join(into, version, 'greeter');
  await mkdir(path.join(folder, 'extensions'), { recursive: true });
  await writeFile(
    path.join(folder, 'plugin.yaml'),
    [
      'apiVersion: plugin.svc.run/v1alpha1',
      'kind: Plugin',
      'metadata:',
      '  name: greeter',
      'spec:',
      `  version: ${version}`,
      '  requires: ">=0.1.0"',
      '  main: index.js',
      '  displayName: Greeter',
      '  description: Says hello when it starts.',
      '  author:',
      '    name: The test',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'index.js'),
    [
      'export default {',
      '  async start(ctx) {',
      `    ctx.logger.info('greeter ${version} says hello');`,
      '    await ctx.models.register({',
      "      group: 'greeter.svc.run', version: 'v1alpha1', kind: 'Greeting', plural: 'greetings',",
      "      schema: { type: 'object', properties: { spec: { type: 'object', properties: { text: { type: 'string' } } } } },",
      '    });',
      '  },',
      '};',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(folder, 'extensions/greetings.yaml'),
    'apiVersion: greeter.svc.run/v1alpha1\nkind: Greeting\nmetadata:\n  name: hello\nspec:\n  text: Hello\n',
  );
  await writeFile(
    path.join(folder, 'extensions/roles.yaml'),
    [
      'apiVersion: v1alpha1',
      'kind: Role',
      'metadata:',
      '  name: greeter-role-view-greetings',
      '  labels:',
      '    svc.run/role-template: "true"',
      '  annotations:',
      '    rbac.authorization.svc.run/module: "Greeter"',
      '    rbac.authorization.svc.run/display-name: "Greeting view"',
      `    rbac.authorization.svc.run/ui-permissions: '["plugin:greeter:view"]'`,
      'rules:',
      '  - apiGroups: ["greeter.svc.run"]',
      '    resources: ["greetings"]',
      '    verbs: ["get"]',
      '',
    ].join('\n'),
  );
  const archive = path.join(into, `greeter-${version}.tgz`);
  await writeFile(archive, await tgzOf(folder));
  return archive;
}

describe.skipIf(!browserAvailable)('the Plugins page in Chromium', () => {
  let c: ConsoleUnderTest;
  let scratch: string;
  let v1: string;
  let v2: string;
  let notAnArchive: string;
  let throws: string;
  let tooLarge: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-plugins-page-'));
    v1 = await greeter(scratch, '1.0.0');
    v2 = await greeter(scratch, '1.1.0');
    throws = path.join(scratch, 'throws.tgz');
    await writeFile(throws, await tgzOf(path.join(FIXTURES, 'plugins-bad/throws')));
    tooLarge = path.join(scratch, 'huge.tgz');
    await writeFile(tooLarge, Buffer.alloc(64 * 1024 * 1024 + 1024, 7));
    notAnArchive = path.join(scratch, 'notes.zip');
    await writeFile(notAnArchive, 'these are notes, not a zip');
    c = await startConsole();
    await c.createUser(NOBODY);
    await c.createUser(VIEWER, ['role-template-view-plugins']);
  }, 60_000);
  afterAll(async () => {
    await c?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const table = (page: Page) => page.getByRole('table', { name: 'Plugins' });
  const row = (page: Page, title: string) =>
    table(page)
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: title, exact: true }) });
  const phaseOf = (page: Page, title: string) => row(page, title).getByRole('cell').nth(2).textContent();
  const enabledOf = (page: Page, title: string) => row(page, title).getByRole('cell').nth(3).textContent();
  /**
   * Waits for the page's finite animations (a dialog fading in) to end, so axe and screenshots see it whole; not for
   * those a scroll position drives (a wide table's fade), which end only when the user scrolls.
   */
  const still = (page: Page) =>
    page.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter(
            (a) => a.timeline === document.timeline && a.effect?.getTiming().iterations !== Number.POSITIVE_INFINITY,
          )
          // A cancelled animation (a toast leaving) rejects: it is over too.
          .map((a) => a.finished.catch(() => undefined)),
      ),
    );
  /** Accepts the confirmation dialog, checking that it names the plugin. */
  const confirm = async (page: Page, text: string, button: string) => {
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(text);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  };

  it('lists people STARTED, installs, enables, disables and follows changes live', async () => {
    const { page } = await c.signedIn(TEST_ADMIN);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('heading', { name: 'Plugins', level: 1 }).waitFor();
    await expect.poll(() => phaseOf(page, 'People')).toBe('STARTED');
    expect(await enabledOf(page, 'People')).toBe('Yes');
    expect(await row(page, 'People').getByRole('cell').nth(4).textContent()).toBe(
      'Ready True · Started: the plugin is running',
    );
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'plugins-list');

    // Installing says plainly what a plugin is: code with the server's rights, and pages in every user's browser.
    const install = page.getByRole('region', { name: 'Install a plugin' });
    expect(await install.textContent()).toContain(
      "A plugin runs inside svc with all of the server's rights (its settings, files and database), and its pages " +
        "run in every console user's browser: install only plugins you trust.",
    );

    // A file that is no archive: svc's reason, in an alert.
    await page.getByLabel('Plugin archive (.tgz or .zip)').setInputFiles(notAnArchive);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const alert = page.locator('p[role="alert"]');
    await expect.poll(() => alert.textContent()).toMatch(/^the plugin archive was refused: /);
    await c.shot(page, 'plugins-bad-archive');

    // Past svc's limit: its 413 reaches the page as words, not as a broken connection.
    await page.getByLabel('Plugin archive (.tgz or .zip)').setInputFiles(tooLarge);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => alert.textContent()).toBe('the archive is larger than 64 MiB');

    await page.getByLabel('Plugin archive (.tgz or .zip)').setInputFiles(v1);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => phaseOf(page, 'Greeter')).toBe('RESOLVED');
    expect(await enabledOf(page, 'Greeter')).toBe('No');
    expect(await alert.count()).toBe(0);

    await page.getByRole('button', { name: 'Enable Greeter' }).click();
    await confirm(page, "svc starts it now. A plugin runs inside svc with all of the server's rights", 'Enable');
    await expect.poll(() => phaseOf(page, 'Greeter')).toBe('STARTED');
    expect(await enabledOf(page, 'Greeter')).toBe('Yes');

    // Another client disables it through the API: the row follows without a reload.
    expect((await c.t.request('PUT', STATE, { enable: false })).status).toBe(200);
    await expect.poll(() => phaseOf(page, 'Greeter')).toBe('STOPPED');
    expect(await enabledOf(page, 'Greeter')).toBe('No');
    expect(await row(page, 'Greeter').getByRole('cell').nth(4).textContent()).toBe(
      'Ready False · Disabled: the plugin is disabled',
    );
    // The watch breaks (svc drops the browser's connections, and new watches fail for a while) while another client
    // enables it: the page says so, then resumes from the revision it had and shows the change.
    const refuseWatches = (route: Route) => route.abort('connectionreset');
    await page.route(/[?&]watch=true/, refuseWatches);
    c.t.server.app.server.closeAllConnections();
    await page.getByRole('status').filter({ hasText: 'Live updates paused, retrying' }).waitFor();
    expect((await c.t.request('PUT', STATE, { enable: true })).status).toBe(200);
    expect(await phaseOf(page, 'Greeter')).toBe('STOPPED');
    await page.unroute(/[?&]watch=true/, refuseWatches);
    await expect.poll(() => phaseOf(page, 'Greeter'), { timeout: 15_000 }).toBe('STARTED');
    expect(await page.getByRole('status').filter({ hasText: 'Live updates paused' }).count()).toBe(0);

    // Disabling asks first, from the keyboard too: the dialog takes focus, Escape cancels and changes nothing.
    await page.getByRole('button', { name: 'Disable Greeter' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    await still(page);
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await c.shot(page, 'plugins-confirm-disable');
    expect(await c.seriousViolations(page, '[role="alertdialog"]')).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await phaseOf(page, 'Greeter')).toBe('STARTED');
    await page.getByRole('button', { name: 'Disable Greeter' }).click();
    // It says what a stop keeps: the data, and what people changed in it; only its APIs, pages and roles go.
    await confirm(
      page,
      'Disable Greeter (greeter)? svc stops it: its APIs, pages and role templates go away until it is enabled ' +
        "again. Its data stays stored, with people's changes",
      'Disable',
    );
    await expect.poll(() => phaseOf(page, 'Greeter')).toBe('STOPPED');
    expect((await c.t.request('GET', '/apis/plugin.svc.run/v1alpha1/plugins/greeter')).body.spec.enabled).toBe(false);
    await c.shot(page, 'plugins-after-disable');
  });

  it("shows a plugin's manifest, logs and role templates; upgrades and uninstalls it", async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/plugins');
    await row(page, 'Greeter').getByRole('link', { name: 'Greeter' }).click();
    await page.getByRole('heading', { name: 'Greeter', level: 1 }).waitFor();
    const manifest = page.getByRole('region', { name: 'Manifest' });
    expect(await manifest.locator('dt').allTextContents()).toEqual([
      'Name',
      'Version',
      'Requires svc',
      'Author',
      'Entry module',
      'Depends on',
      'Enabled',
      'Installed from',
      'Loaded from',
      'Last started',
      'Installed',
    ]);
    expect(await manifest.locator('dd').first().textContent()).toBe('greeter');
    expect(await manifest.locator('dd').nth(1).textContent()).toBe('1.0.0');
    expect(await manifest.locator('dd').nth(3).textContent()).toBe('The test');
    expect(await manifest.locator('dd').nth(7).textContent()).toBe('an uploaded archive');

    // Stopped: no roles; enabled from here, its start's log line and its role template appear.
    const roles = page.getByRole('region', { name: 'Role templates' });
    await roles.getByText('None while Greeter is not running').waitFor();
    await page.getByRole('button', { name: 'Enable Greeter' }).click();
    await confirm(page, 'Enable Greeter (greeter)?', 'Enable');
    const logs = page.getByRole('table', { name: 'Log of Greeter' });
    await logs.getByRole('cell', { name: 'greeter 1.0.0 says hello' }).waitFor();
    const templates = page.getByRole('table', { name: 'Role templates of Greeter' });
    await templates.getByRole('cell', { name: 'Greeting view' }).waitFor();
    expect(await templates.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      'greeter-role-view-greetings',
      'Greeting view',
      'Greeter',
      'plugin:greeter:view',
    ]);
    expect(await templates.getByRole('link', { name: 'greeter-role-view-greetings' }).getAttribute('href')).toBe(
      '/console/roles/greeter-role-view-greetings',
    );
    await page.getByRole('button', { name: 'Refresh logs' }).click();
    await logs.getByRole('cell', { name: 'greeter 1.0.0 says hello' }).waitFor();
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'plugin-detail');

    // Upgrade: the dialog names the plugin; a bad archive is refused inside it, a good one replaces the code.
    await page.getByRole('button', { name: 'Upgrade Greeter' }).click();
    const upgrade = page.getByRole('dialog', { name: 'Upgrade Greeter' });
    expect(await upgrade.textContent()).toContain("A plugin runs inside svc with all of the server's rights");
    await upgrade.getByLabel('New archive of Greeter (.tgz or .zip)').setInputFiles(notAnArchive);
    await upgrade.getByRole('button', { name: 'Upgrade', exact: true }).click();
    await expect.poll(() => upgrade.getByRole('alert').textContent()).toMatch(/^the plugin archive was refused: /);
    await still(page);
    await c.shot(page, 'plugin-upgrade-dialog');
    expect(await c.seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await upgrade.getByLabel('New archive of Greeter (.tgz or .zip)').setInputFiles(v2);
    await upgrade.getByRole('button', { name: 'Upgrade', exact: true }).click();
    await upgrade.waitFor({ state: 'hidden' });
    await expect.poll(() => manifest.locator('dd').nth(1).textContent()).toBe('1.1.0');
    await expect.poll(() => page.locator('.p-tag').first().textContent()).toBe('STARTED');
    await logs.getByRole('cell', { name: 'greeter 1.1.0 says hello' }).waitFor();

    // Uninstalling asks what becomes of its data, keeping it unless the user chooses otherwise; Cancel changes nothing.
    await page.getByRole('button', { name: 'Uninstall Greeter' }).click();
    const uninstall = page.getByRole('dialog', { name: 'Uninstall Greeter' });
    await uninstall.waitFor();
    expect(await uninstall.textContent()).toContain('Uninstall Greeter (greeter)? svc stops it and removes its code.');
    const choice = uninstall.getByRole('group', {
      name: 'Its data: the objects of its models and the objects it declared',
    });
    expect(await choice.getByRole('radio', { name: 'Keep its data' }).isChecked()).toBe(true);
    expect(await choice.getByRole('radio', { name: 'Delete its data' }).isChecked()).toBe(false);
    await still(page);
    expect(await c.seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await c.shot(page, 'plugin-uninstall-dialog');
    await uninstall.getByRole('button', { name: 'Cancel' }).click();
    await uninstall.waitFor({ state: 'hidden' });
    expect((await c.t.request('GET', GREETER)).body.metadata.deletionTimestamp).toBeUndefined();

    await page.getByRole('button', { name: 'Uninstall Greeter' }).click();
    await uninstall.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await page.getByRole('heading', { name: 'Plugins', level: 1 }).waitFor();
    await expect.poll(() => row(page, 'Greeter').count()).toBe(0);
    await expect.poll(() => row(page, 'People').count()).toBe(1);
    expect((await c.t.request('GET', GREETER)).status).toBe(404);
    // Kept: the object it declared is still stored, for a later install to find.
    expect(await c.t.server.store.count('greeter.svc.run/greetings')).toBe(1);

    // Installed and started again, then uninstalled from the list choosing to delete its data: it goes.
    const { body, headers } = multipart(await readFile(v1));
    expect(
      (await c.t.request('POST', '/apis/api.console.svc.run/v1alpha1/plugins/install', body, headers)).status,
    ).toBe(201);
    expect((await c.t.request('PUT', STATE, { enable: true })).body.status.phase).toBe('STARTED');
    await expect.poll(() => phaseOf(page, 'Greeter')).toBe('STARTED');
    await page.getByRole('button', { name: 'Uninstall Greeter' }).click();
    await uninstall.getByRole('radio', { name: 'Delete its data' }).check();
    await uninstall.getByRole('button', { name: 'Uninstall and delete data', exact: true }).click();
    await uninstall.waitFor({ state: 'hidden' });
    await expect.poll(() => row(page, 'Greeter').count()).toBe(0);
    await expect.poll(() => c.t.server.store.count('greeter.svc.run/greetings')).toBe(0);
  });

  it("shows a failed start's reason in an alert, the row and the plugin's log", async () => {
    const { page } = await c.signedIn(TEST_ADMIN, '/console/plugins');
    await page.getByLabel('Plugin archive (.tgz or .zip)').setInputFiles(throws);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => phaseOf(page, 'throws')).toBe('RESOLVED');
    await page.getByRole('button', { name: 'Enable throws' }).click();
    await confirm(page, 'Enable throws (throws)?', 'Enable');
    await expect.poll(() => phaseOf(page, 'throws')).toBe('FAILED');
    expect(await page.locator('p[role="alert"]').textContent()).toMatch(
      /^throws failed to start: StartFailed: .*database of the plugin is unreachable/,
    );
    expect(await row(page, 'throws').getByRole('cell').nth(4).textContent()).toMatch(
      /^Ready False · StartFailed: .*database of the plugin is unreachable/,
    );
    await still(page);
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'plugins-failed');

    await row(page, 'throws').getByRole('link', { name: 'throws' }).click();
    const logs = page.getByRole('table', { name: 'Log of throws' });
    await logs.getByRole('row').filter({ hasText: 'unreachable' }).first().waitFor();
    expect(
      await logs.getByRole('row').filter({ hasText: 'unreachable' }).first().getByRole('cell').nth(1).textContent(),
    ).toBe('error');
    expect((await c.t.request('DELETE', '/apis/plugin.svc.run/v1alpha1/plugins/throws')).status).toBe(200);
    await page.getByRole('alert').filter({ hasText: 'No plugin named "throws" is installed.' }).waitFor();
  });

  it('shows an upgrade that failed to start and was rolled back: the version running, the error, the log', async () => {
    const { body, headers } = multipart(await flipArchive(scratch, '1.0.0', 'serves'));
    expect(
      (await c.t.request('POST', '/apis/api.console.svc.run/v1alpha1/plugins/install', body, headers)).status,
    ).toBe(201);
    const state = '/apis/api.console.svc.run/v1alpha1/plugins/flip/plugin-state';
    expect((await c.t.request('PUT', state, { enable: true })).body.status.phase).toBe('STARTED');
    const failing = path.join(scratch, 'flip-2.0.0.tgz');
    await writeFile(failing, await flipArchive(scratch, '2.0.0', 'start-throws'));

    const { page } = await c.signedIn(TEST_ADMIN, '/console/plugins/flip');
    await page.getByRole('heading', { name: 'flip', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Upgrade flip' }).click();
    const upgrade = page.getByRole('dialog', { name: 'Upgrade flip' });
    await upgrade.getByLabel('New archive of flip (.tgz or .zip)').setInputFiles(failing);
    await upgrade.getByRole('button', { name: 'Upgrade', exact: true }).click();
    await upgrade.waitFor({ state: 'hidden' });
    await page.getByText('The upgrade of flip to 2.0.0 failed to start: 1.0.0 runs again').waitFor();

    const said = page.locator('p.rolled-back');
    await expect
      .poll(() => said.textContent())
      .toMatch(
        /^\s*The upgrade to 2\.0\.0 failed to start \(.+\) and was rolled back: 1\.0\.0 runs again\. Its error: boom\s*$/,
      );
    const manifest = page.getByRole('region', { name: 'Manifest' });
    expect(await manifest.locator('dt').nth(2).textContent()).toBe('Version running');
    expect(await manifest.locator('dd').nth(2).textContent()).toBe('1.0.0');
    expect(await manifest.locator('dd').nth(1).textContent()).toBe('1.0.0');
    const logs = page.getByRole('table', { name: 'Log of flip' });
    await logs
      .getByRole('cell', { name: 'the upgrade to 2.0.0 failed to start (boom); rolled back to 1.0.0' })
      .waitFor();
    await still(page);
    expect(await c.seriousViolations(page)).toEqual([]);
    await c.shot(page, 'plugin-rolled-back');
    expect((await c.t.request('DELETE', '/apis/plugin.svc.run/v1alpha1/plugins/flip')).status).toBe(200);
  });

  it('shows a viewer the list without management, and a user without the permission nothing', async () => {
    const viewer = await c.signedIn(VIEWER, '/console/plugins');
    await expect.poll(() => phaseOf(viewer.page, 'People')).toBe('STARTED');
    expect(await viewer.page.getByRole('heading', { name: 'Install a plugin' }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: /^(Enable|Disable|Upgrade|Uninstall) / }).count()).toBe(0);
    expect(await table(viewer.page).getByRole('columnheader').allTextContents()).toEqual([
      'Plugin',
      'Version',
      'Phase',
      'Enabled',
      'Conditions',
    ]);

    await table(viewer.page).getByRole('link', { name: 'People' }).click();
    await viewer.page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
    await viewer.page.getByText("Seeing a plugin's roles needs the Roles view permission.").waitFor();
    await viewer.page.getByRole('table', { name: 'Log of People' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: /^(Enable|Disable|Upgrade|Uninstall) / }).count()).toBe(0);
    expect(await c.seriousViolations(viewer.page)).toEqual([]);
    await c.shot(viewer.page, 'plugin-detail-viewer');

    const { page } = await c.signedIn(NOBODY, '/console/plugins');
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plugins' }).count()).toBe(0);
    await page.goto(`${c.base}/console/plugins/people`);
    await page.getByRole('heading', { name: 'No permission' }).waitFor();
    await c.shot(page, 'plugins-no-permission');
  });
});
