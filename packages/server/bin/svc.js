#!/usr/bin/env node
// The `svc` command. A committed file, so that npm links it into node_modules/.bin at install time, before the
// TypeScript it runs (dist/cli.js) is built.
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
try {
  await import(cli.href);
} catch (error) {
  const file = fileURLToPath(cli);
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(file)) throw error;
  console.error(`svc is not built yet (${file} is missing): run npm run build in the svc repository`);
  process.exit(1);
}
