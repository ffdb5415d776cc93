#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadConfig, settingsFromArgs } from './config.js';
import { createServer } from './main.js';

const USAGE = `usage: svc serve [--host H] [--port P] [--data-dir D] [--database-url URL] [--plugins-dir A:B] [--log-level L] [--watch-history N]`;

async function serve(args: string[]): Promise<void> {
  const settings = settingsFromArgs(args, process.env);
  // `npm start` passes --default-plugins: the repository's plugins/ folder unless SVC_PLUGINS_DIR is set.
  if (args.includes('--default-plugins') && settings.SVC_PLUGINS_DIR === undefined) {
    settings.SVC_PLUGINS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../plugins');
  }
  const config = loadConfig(settings);
  const server = await createServer(config);
  const url = await server.listen();
  console.log(`svc listening on ${url}`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    server.logger.info(`${signal} received, shutting down`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined:
      return serve(rest);
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`svc: ${(error as Error).message}`);
  process.exit(1);
});
