import { readFileSync } from 'node:fs';

/** The host's own version, which plugins' `spec.requires` ranges are checked against. */
export const HOST_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
