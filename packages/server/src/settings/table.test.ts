import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { settingsTable, TABLE_END, TABLE_START, withSettingsTable } from './docs-table.js';
import { variableOf } from './setting.js';
import { type Config, SETTINGS } from './table.js';
import { serveUsage } from './usage.js';

const API_DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/api.md');

describe('the settings table', () => {
  it('names every variable and flag after the key, once each', () => {
    for (const s of SETTINGS) {
      expect(s.env).toBe(variableOf(s.key));
      if (s.flag !== undefined) expect(s.flag).toBe(`--${s.key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    }
    for (const column of ['key', 'field', 'env'] as const) {
      const names = SETTINGS.map((s) => s[column]);
      expect(new Set(names).size, column).toBe(names.length);
    }
  });

  it('has a default every parser takes, and help short enough for one line', () => {
    const at = { name: 'x', resolve: (p: string) => p, earlier: { dataDir: '/data' } };
    for (const s of SETTINGS) {
      if (s.default !== undefined) expect(() => s.parse(s.default!, at), s.key).not.toThrow();
      expect(s.help.length, s.key).toBeLessThanOrEqual(50);
    }
  });

  it('types Config from the entries: each field typed by its parser, optional where it may be unset', () => {
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['httpsPort']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Config['sqliteSync']>().toEqualTypeOf<'normal' | 'full'>();
    expectTypeOf<Config['logFormat']>().toEqualTypeOf<'pretty' | 'json' | undefined>();
    expectTypeOf<Config['trustProxy']>().toEqualTypeOf<boolean | number | string>();
    expectTypeOf<Config['pluginsDirs']>().toEqualTypeOf<string[]>();
    expectTypeOf<Config['sessionIdleTimeoutMs']>().toEqualTypeOf<number>();
    expectTypeOf<Pick<Config, 'databaseUrl'>>().toEqualTypeOf<{ databaseUrl?: string | undefined }>();
  });
});

describe('svc serve --help', () => {
  const help = serveUsage();

  it('lists every setting with its flag, its variable and its default', () => {
    for (const s of SETTINGS) {
      const line = help.split('\n').find((l) => new RegExp(`\\s${s.env}(=|\\s)`).test(l));
      expect(line, s.env).toBeDefined();
      if (s.flag) expect(line!.trimStart().startsWith(`${s.flag} `), s.env).toBe(true);
      if (s.default !== undefined) expect(line, s.env).toContain(`${s.env}=${s.default} `);
      expect(line, s.env).toContain(s.help);
    }
  });

  it('aligns its columns and stays short', () => {
    const rows = help.split('\n').filter((l) => /^ {2}\S|^ {3,}SVC_/.test(l));
    expect(new Set(rows.map((l) => l.indexOf('SVC_'))).size).toBe(1);
    for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(115);
  });
});

describe('the settings table of docs/api.md', () => {
  it('is the one the code makes (npm run docs:settings writes it again)', () => {
    const page = readFileSync(API_DOCS, 'utf8');
    expect(page).toContain(TABLE_START);
    expect(withSettingsTable(page, settingsTable(SETTINGS))).toBe(page);
  });

  it('has one row per setting, its variable first', () => {
    const rows = settingsTable(SETTINGS).split('\n').slice(2);
    expect(rows.map((r) => /^\| `(\w+)` \|/.exec(r)?.[1])).toEqual(SETTINGS.map((s) => s.env));
  });

  it('is written between its markers, and refuses a page without them', () => {
    const page = `before\n${TABLE_START}\nold table\n${TABLE_END}\nafter`;
    expect(withSettingsTable(page, 'new table')).toBe(`before\n${TABLE_START}\nnew table\n${TABLE_END}\nafter`);
    expect(() => withSettingsTable('no markers', 'x')).toThrow('the page lacks the markers');
  });
});
