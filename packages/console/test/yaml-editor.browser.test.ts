/**
 * The object page's YAML editor in a real browser: CodeMirror loaded only when the YAML tab opens, the model's schema
 * errors and YAML syntax errors marked at their lines and listed in words, svc's own errors still shown on save, a
 * valid object saved, and the editor usable from the keyboard and on a phone's width.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type ConsoleUnderTest, startConsole, TEST_ADMIN } from './browser-harness.js';

const PERSONS = '/apis/people.svc.run/v1alpha1/persons';
const NEW_PERSON_PAGE = '/console/resources/people.svc.run/v1alpha1/persons/-/new';

/** A Person as typed into the editor, its spec's age (line 7) as given. */
const personYaml = (age: string) =>
  [
    'apiVersion: people.svc.run/v1alpha1',
    'kind: Person',
    'metadata:',
    '  name: yaml-person',
    'spec:',
    '  name: Yaml Person',
    `  age: ${age}`,
    '  gender: FEMALE',
    '',
  ].join('\n');

/** The editor's script chunks among fetched paths. */
const editorChunks = (paths: string[]) => paths.filter((p) => /\/YamlEditor-[\w-]+\.js$/.test(p));

/** The problems listed under the editor, one string each. */
async function listedProblems(page: Page): Promise<string[]> {
  const items = page.getByRole('list', { name: 'Problems in the YAML' }).getByRole('listitem');
  return (await items.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
}

/** The editor's text lines that carry an error mark. */
async function markedLines(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.cm-content .cm-line')].flatMap((line, i) =>
      line.querySelector('.cm-lintRange-error') ? [i + 1] : [],
    ),
  );
}

describe.skipIf(!browserAvailable)('the YAML editor in Chromium', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await startConsole();
  }, 120_000);
  afterAll(() => c?.close());

  it('loads with the YAML tab, marks schema and syntax errors at their lines, and saves valid YAML', async () => {
    const { page } = await c.signedIn(TEST_ADMIN, NEW_PERSON_PAGE);
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    const crashes: string[] = [];
    page.on('pageerror', (error) => crashes.push(error.message));
    // What the page's Content-Security-Policy refuses to a script (the editor's styles carry the page's nonce). The
    // browser's own editing, which playwright's fill() drives, may try an inline style that names no script: not ours.
    await page.evaluate(() => {
      const w = window as unknown as { refused: string[] };
      w.refused = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        if (e.sourceFile) w.refused.push(`${e.violatedDirective} ${e.sourceFile}:${e.lineNumber}`);
      });
    });
    await page.getByRole('heading', { name: 'New Person' }).waitFor();
    await page.getByRole('group', { name: 'Spec' }).getByLabel('Age').waitFor();
    expect(editorChunks(fetched)).toEqual([]);

    await page.getByRole('tab', { name: 'YAML' }).click();
    const editor = page.getByRole('textbox', { name: 'YAML' });
    await editor.waitFor();
    expect(editorChunks(fetched)).toHaveLength(1);

    // A string where the schema wants an integer.
    await editor.fill(personYaml('thirty'));
    await expect.poll(() => listedProblems(page)).toEqual(['Line 7: spec.age must be integer']);
    expect(await markedLines(page)).toEqual([7]);
    await page.locator('.cm-lintRange-error').hover();
    await page.locator('.cm-tooltip-lint').getByText('spec.age: must be integer').waitFor();
    await c.shot(page, 'yaml-editor-schema-error');
    expect(await c.seriousViolations(page)).toEqual([]);

    // A YAML syntax error: a map inside a one-line map.
    await editor.fill(personYaml('30: 31'));
    await expect
      .poll(() => listedProblems(page))
      .toEqual(['Line 7: Nested mappings are not allowed in compact mappings']);
    expect(await markedLines(page)).toEqual([7]);

    // Valid by the schema in the browser, refused by svc's own check: its error is listed above the form as before.
    await editor.fill(personYaml('151'));
    await expect.poll(() => listedProblems(page)).toEqual(['Line 7: spec.age must be <= 150']);
    await page.getByRole('button', { name: 'Create' }).click();
    const alert = page.getByRole('alert').filter({ hasText: '/spec/age' });
    expect((await alert.getByRole('listitem').textContent())?.trim()).toBe('/spec/age: must be <= 150');

    // Valid: nothing listed, and the object is created as written.
    await editor.fill(personYaml('30'));
    await expect.poll(() => listedProblems(page)).toEqual([]);
    expect(await markedLines(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Person yaml-person' }).waitFor();
    const made = (await c.t.request('GET', `${PERSONS}/yaml-person`)).body;
    expect(made.spec).toEqual({ name: 'Yaml Person', age: 30, gender: 'FEMALE' });
    expect(await page.evaluate(() => (window as unknown as { refused: string[] }).refused)).toEqual([]);
    // CodeMirror's own style sheet applied: its editor is a flex box.
    expect(await page.locator('.cm-editor').evaluate((e) => getComputedStyle(e).display)).toBe('flex');
    expect(crashes).toEqual([]);
  });

  it('is reached and left with the keyboard, and fits a 390 px screen', async () => {
    // On a phone the main menu hides behind its button, so this signs in without waiting for it.
    const { page } = await c.visit({ viewport: { width: 390, height: 844 } });
    await page.goto(`${c.base}${NEW_PERSON_PAGE}`);
    await c.signIn(page, TEST_ADMIN);
    await page.getByRole('heading', { name: 'New Person' }).waitFor();
    await page.getByRole('tab', { name: 'YAML' }).click();
    const editor = page.getByRole('textbox', { name: 'YAML' });
    await editor.waitFor();
    await editor.focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(
      'status:\n  note: a line long enough to wrap on a phone rather than push the page sideways',
    );
    await expect.poll(() => listedProblems(page)).toEqual([]);
    expect(await editor.textContent()).toContain('status:');
    // Tab leaves the editor (it does not trap focus) for the next control.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('cm-content'))).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await c.shot(page, 'yaml-editor-phone');
    expect(await c.seriousViolations(page)).toEqual([]);
  });
});
