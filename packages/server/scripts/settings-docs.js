#!/usr/bin/env node
// `npm run docs:settings`: writes the settings table of docs/api.md again, from the settings table the server is
// built from (packages/server/src/settings/). The npm script builds the server first; this reads what it built.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsTable, withSettingsTable } from '../dist/settings/docs-table.js';
import { SETTINGS } from '../dist/settings/table.js';

const page = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/api.md');
const before = readFileSync(page, 'utf8');
const after = withSettingsTable(before, settingsTable(SETTINGS));
if (after === before) {
  console.log('docs/api.md: the settings table is up to date');
} else {
  writeFileSync(page, after);
  console.log('docs/api.md: the settings table is written again');
}
