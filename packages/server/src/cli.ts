#!/usr/bin/env node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLUGIN_USAGE, pluginCommand } from './cli/plugin-command.js';

const USAGE = `usage: svc serve [--host H] [--port P] [--data-dir D] [--database-url URL] [--plugins-dir A:B] [--log-level L] [--watch-history N]
       ${PLUGIN_USAGE}`;

async function serve(args: string[]): Promise<void> {
  // Loaded here, so that the plugin author's commands do not load the server (and its database drivers).
  const { loadConfig, settingsFromArgs } = await import('./config.js');
  const { createServer } = await import('./main.js');
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
    case 'plugin':
      process.exitCode = await pluginCommand(rest);
      return;
    case 'help':
    case '--help':
    case '-h':
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
