/**
 * Issue 33 items 1 and 2: the console in English and Simplified Chinese, on a desktop (1280 px) and a phone
 * (390 × 844). For the role matrix's four users, in both languages and at both sizes, every main page: nothing scrolls
 * sideways, the Menu button opens the navigation on a phone, axe finds nothing serious, and (in Chinese) none of the
 * console's English sentences is left. The language switch changes the page without a reload, sets <html lang> and
 * is remembered across a reload; a Chinese browser gets Chinese first. Screenshots: .tmp/screens/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../server/test/harness.js';
import en from '../src/i18n/en.js';
import zhCN from '../src/i18n/zh-CN.js';
import {
  browserAvailable,
  type ConsoleUnderTest,
  type Credentials,
  startConsole,
  TEST_ADMIN,
} from './browser-harness.js';

const EDITOR = { username: 'edith', password: 'edith-password-1' };
const CONTRIBUTOR = { username: 'conrad', password: 'conrad-password-1' };
const VIEWER = { username: 'violet', password: 'violet-password-1' };
const USERS: [string, Credentials][] = [
  ['admin', TEST_ADMIN],
  ['editor', EDITOR],
  ['contributor', CONTRIBUTOR],
  ['viewer', VIEWER],
];

/** The main pages of both roots; a user may not open some of them, which then show "No permission" (laid out too). */
const PAGES = [
  '/console/',
  '/console/persons',
  '/console/posts',
  '/console/users',
  '/console/roles',
  '/console/access-review',
  '/console/plugins',
  '/console/resources',
  '/console/resources/people.svc.run/v1alpha1/persons',
  '/uc/profile',
  '/uc/password',
  '/uc/tokens',
  '/uc/posts',
  '/uc/people/mine',
];

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SCREENS = path.join(REPO, '.tmp/screens');

/** The words each language uses for what a test clicks or reads, from the message files themselves. */
const WORDS = {
  en: { locale: 'en-US', lang: 'en', ...en.signIn, menu: en.layout.menu, main: en.layout.main },
  'zh-CN': { locale: 'zh-CN', lang: 'zh-CN', ...zhCN.signIn, menu: zhCN.layout.menu, main: zhCN.layout.main },
};
type Language = keyof typeof WORDS;

type Tree = { [key: string]: string | Tree };
const leaves = (tree: Tree): string[] => Object.values(tree).flatMap((v) => (typeof v === 'string' ? [v] : leaves(v)));
/**
 * The console's English sentences that must not show in Chinese: every English message of several words (its text
 * before any placeholder), except those whose Chinese is the same.
 */
const ENGLISH = leaves(en as Tree)
  .map((text) => text.split(/[{|]/)[0]?.trim() ?? '')
  .filter((text) => text.split(' ').length >= 2 && text.length >= 10)
  // Words that are also in what svc's API answers, which stays as svc gives it: a built-in role template's display
  // name ("… the personal center …") and a model's title on the Resources page ("Personal access tokens").
  .filter((text) => !['personal center', 'Personal access tokens'].includes(text));

/** Waits until the page has its heading and nothing on it is loading any more. */
async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(
    () => !document.querySelector('[aria-busy="true"], .p-datatable-mask, .p-skeleton, .p-progressspinner'),
  );
}

/** How far the page scrolls sideways (0: not at all). */
const sideways = (page: Page) => page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) - window.innerWidth);

describe.skipIf(!browserAvailable)('the console in two languages, on a desktop and a phone', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    mkdirSync(SCREENS, { recursive: true });
    c = await startConsole();
    await c.createUser(EDITOR, ['editor']);
    await c.createUser(CONTRIBUTOR, ['contributor']);
    await c.createUser(VIEWER, ['people-role-view-persons']);
    // Rows with long words, so wide tables have something to scroll.
    const post = await c.t.request('POST', '/apis/content.svc.run/v1alpha1/posts', {
      apiVersion: 'content.svc.run/v1alpha1',
      kind: 'Post',
      metadata: { name: 'a-rather-long-post-name-that-does-not-wrap-easily' },
      spec: { title: 'Hello from a post whose title is long enough to need room', owner: EDITOR.username },
    });
    expect(post.status).toBe(201);
  }, 60_000);
  afterAll(() => c?.close());

  /** Signs in through the page in `language`, the browser set to that language, at `viewport`. */
  async function signedIn(who: Credentials, language: Language, viewport: typeof DESKTOP) {
    const words = WORDS[language];
    const { context, page } = await c.visit({ locale: words.locale, viewport });
    await page.goto(`${c.base}/console/`);
    await page.getByLabel(words.username).fill(who.username);
    await page.getByLabel(words.password, { exact: true }).fill(who.password);
    await page.getByRole('button', { name: words.submit }).click();
    await page.locator('header.topbar').waitFor();
    return { context, page };
  }

  /** The console loaded afresh at `viewport` in a new browser session that carries `signedInAs`'s cookies. */
  async function reopened(signedInAs: BrowserContext, language: Language, viewport: typeof DESKTOP) {
    const storageState = await signedInAs.storageState();
    const context = await c.browser.newContext({ locale: WORDS[language].locale, viewport, storageState });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${c.base}/console/`);
    await page.locator('header.topbar').waitFor();
    return { context, page };
  }

  for (const language of ['en', 'zh-CN'] as const) {
    for (const [role, who] of USERS) {
      it(`${role}, ${language}: every main page fits 1280 and 390 px, passes axe, and the phone menu opens`, async () => {
        const words = WORDS[language];
        let signedInAs: BrowserContext | undefined;
        for (const viewport of [DESKTOP, PHONE]) {
          // Signed in through the form on the desktop; the phone loads the console afresh in that session.
          const { context, page } = signedInAs
            ? await reopened(signedInAs, language, viewport)
            : await signedIn(who, language, viewport);
          expect(await page.evaluate(() => document.documentElement.lang)).toBe(words.lang);
          const problems: string[] = [];
          for (const url of PAGES) {
            // Within the app, as a link does: the pages are under test here, not loading them.
            await c.navigate(page, url);
            await settled(page);
            const wide = await sideways(page);
            if (wide > 0) problems.push(`${url} at ${viewport.width} px scrolls sideways by ${wide} px`);
            for (const v of await c.seriousViolations(page)) problems.push(`${url} at ${viewport.width} px: ${v}`);
            if (language === 'zh-CN') {
              const text = (await page.locator('body').textContent()) ?? '';
              for (const sentence of ENGLISH.filter((s) => text.includes(s))) problems.push(`${url}: "${sentence}"`);
            }
            if (role === 'admin' && (url === '/console/users' || url === '/console/persons')) {
              await page.screenshot({
                path: path.join(SCREENS, `${role}-${language}-${viewport.width}${url.replace(/\//g, '-')}.png`),
              });
            }
          }
          expect(problems).toEqual([]);

          const menu = page.getByRole('button', { name: words.menu });
          const nav = page.getByRole('navigation', { name: words.main });
          if (viewport === PHONE) {
            // The navigation is behind the Menu button; it opens, takes the user to a page and closes again.
            await expect.poll(() => nav.isVisible()).toBe(false);
            expect(await menu.getAttribute('aria-expanded')).toBe('false');
            await menu.click();
            await nav.waitFor();
            expect(await menu.getAttribute('aria-expanded')).toBe('true');
            if (role === 'admin') await page.screenshot({ path: path.join(SCREENS, `menu-open-${language}-390.png`) });
            await nav.getByRole('link').first().click();
            await expect.poll(() => nav.isVisible()).toBe(false);
          } else {
            expect(await menu.isVisible()).toBe(false);
            expect(await nav.isVisible()).toBe(true);
          }
          if (signedInAs) await context.close();
          else signedInAs = context;
        }
        await signedInAs?.close();
      }, 240_000);
    }
  }

  it('switches the language without a reload, sets <html lang>, and remembers it across a reload', async () => {
    const { context, page } = await signedIn(TEST_ADMIN, 'en', DESKTOP);
    await page.goto(`${c.base}/console/users`);
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    // A mark on the window: a reload would drop it.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));

    await page.getByRole('combobox', { name: 'Language' }).selectOption('zh-CN');
    await page.getByRole('heading', { name: '用户', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await page.getByRole('navigation', { name: '主菜单' }).getByRole('link').allTextContents()).toContain(
      '用户',
    );
    expect(await page.getByRole('button', { name: '退出登录' }).isVisible()).toBe(true);
    expect(await page.title()).toBe('用户 · svc');
    await page.screenshot({ path: path.join(SCREENS, 'switched-zh-CN-1280-users.png') });

    await page.reload();
    await page.getByRole('heading', { name: '用户', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await page.getByRole('combobox', { name: '语言' }).selectOption('en');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.reload();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await context.close();
  });

  it('fades a wide table at the edge it scrolls towards on a phone, and not a table that fits', async () => {
    /** How far the box overflows, and the widths of the fades at its start and end edges as the page draws them. */
    const edges = (box: Locator) =>
      box.evaluate((el) => {
        const style = getComputedStyle(el);
        return {
          overflow: el.scrollWidth - el.clientWidth > 0,
          start: style.getPropertyValue('--scroll-fade-start'),
          end: style.getPropertyValue('--scroll-fade-end'),
          mask: style.maskImage,
        };
      });
    /** Scrolls the box to its end, as a swipe does, and waits for the page to draw that. */
    const scrollToEnd = (box: Locator) =>
      box.evaluate(async (el) => {
        el.scrollLeft = el.scrollWidth;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      });

    const phone = await signedIn(TEST_ADMIN, 'zh-CN', PHONE);
    // The Users page's plain table: its third column, 角色, starts at the screen's edge.
    await c.navigate(phone.page, '/console/users');
    await settled(phone.page);
    const users = phone.page.locator('main .table-scroll').first();
    expect(await edges(users)).toEqual({
      overflow: true,
      start: '0px',
      end: '40px',
      mask: 'linear-gradient(to right, rgba(0, 0, 0, 0), rgb(0, 0, 0) 0px, rgb(0, 0, 0) calc(100% - 40px), rgba(0, 0, 0, 0))',
    });
    await phone.page.screenshot({ path: path.join(SCREENS, 'table-fade-zh-CN-390-users.png') });
    await scrollToEnd(users);
    expect(await edges(users)).toMatchObject({ start: '40px', end: '0px' });
    expect(await c.seriousViolations(phone.page)).toEqual([]);

    // A DataTable (PrimeVue's, in its own scrolling container): the plugins, with their phases and conditions.
    await c.navigate(phone.page, '/console/plugins');
    await settled(phone.page);
    const posts = phone.page.locator('main .p-datatable-table-container');
    expect(await edges(posts)).toMatchObject({ overflow: true, start: '0px', end: '40px' });
    await scrollToEnd(posts);
    expect(await edges(posts)).toMatchObject({ start: '40px', end: '0px' });
    await phone.context.close();

    // On a desktop both tables fit: no fade at either edge, no mask at all.
    const desktop = await signedIn(TEST_ADMIN, 'zh-CN', DESKTOP);
    await c.navigate(desktop.page, '/console/users');
    await settled(desktop.page);
    expect(await edges(desktop.page.locator('main .table-scroll').first())).toMatchObject({
      overflow: false,
      start: '0px',
      end: '0px',
      mask: 'none',
    });
    await c.navigate(desktop.page, '/console/plugins');
    await settled(desktop.page);
    expect(await edges(desktop.page.locator('main .p-datatable-table-container'))).toMatchObject({
      overflow: false,
      start: '0px',
      end: '0px',
      mask: 'none',
    });
    await desktop.context.close();
  });

  it('gives a Chinese browser Chinese first, the sign-in form too, and loads Chinese only then', async () => {
    const fetched: string[] = [];
    const english = await c.visit({ locale: 'en-US' });
    english.page.on('request', (r) => fetched.push(r.url()));
    await english.page.goto(`${c.base}/console/login`);
    await english.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(fetched.filter((url) => /zh-CN/.test(url))).toEqual([]);
    await english.context.close();

    const { context, page } = await c.visit({ locale: 'zh-CN' });
    await page.goto(`${c.base}/console/login`);
    await page.getByRole('heading', { name: '登录 svc' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await page.getByLabel('用户名').isVisible()).toBe(true);
    expect(await page.getByRole('combobox', { name: '语言' }).inputValue()).toBe('zh-CN');
    expect(await c.seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
