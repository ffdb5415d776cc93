/**
 * The table of docs/api.md "Settings", made from the settings table: `npm run docs:settings` writes it into the page
 * between two markers, and a test fails when the page's table is not the one the code makes.
 */
import type { Setting } from './setting.js';

export const TABLE_START =
  '<!-- settings table: made from packages/server/src/settings/ by `npm run docs:settings`; edit it there -->';
export const TABLE_END = '<!-- end of the settings table -->';

const code = (text: string) => `\`${text}\``;

function defaultOf(s: Setting): string {
  if (s.default !== undefined) return code(s.default);
  return s.unset ?? 'unset';
}

/** The Markdown table: variable, flag, config file key, default, meaning. */
export function settingsTable(settings: readonly Setting[]): string {
  const rows = settings.map((s) =>
    [code(s.env), s.flag ? code(s.flag) : '', s.inFile ? code(s.key) : '', defaultOf(s), s.docs].join(' | '),
  );
  return [
    '| variable | flag | file key | default | meaning |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}

/** The page with the table between its markers replaced by `table`. */
export function withSettingsTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${page.slice(0, start + TABLE_START.length)}\n${table}\n${page.slice(end)}`;
}
