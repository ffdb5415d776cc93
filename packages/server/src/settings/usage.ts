/** `svc serve --help`, made from the settings table: every setting's flag, variable, default and one line. */
import { columns } from '../util/columns.js';
import type { Setting } from './setting.js';
import { SETTING_GROUPS } from './table.js';

const INTRO = `usage: svc serve [flags]

Runs the server: the API, the console and the plugins. Each setting is a flag, an environment variable and a key
of the config file (the flag in camelCase: --data-dir is dataDir); a flag beats the variable, which beats the
file. An empty value is the default. Every setting in full: docs/api.md, "Settings".`;

function row(s: Setting): string[] {
  return [s.flag ? `${s.flag} ${s.arg}` : '', s.default === undefined ? s.env : `${s.env}=${s.default}`, s.help];
}

export function serveUsage(): string {
  const groups = SETTING_GROUPS.map((g) => ({ title: g.title, settings: g.settings as readonly Setting[] }));
  // Aligned across the groups, so every column starts at the same place.
  const lines = columns(groups.flatMap((g) => g.settings.map(row)));
  const out = [INTRO];
  for (const group of groups) {
    out.push('', `${group.title}:`, ...lines.splice(0, group.settings.length).map((line) => `  ${line}`));
  }
  return out.join('\n');
}
