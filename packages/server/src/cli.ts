#!/usr/bin/env node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_USAGE, adminCommand } from './cli/admin-command.js';
import { EXPORT_USAGE, exportCommand } from './cli/export-command.js';
import { IMPORT_USAGE, importCommand } from './cli/import-command.js';
import { ONLINE_COMMANDS, ONLINE_USAGE, onlineCommand } from './cli/online/commands.js';
import { PLUGIN_USAGE, pluginCommand } from './cli/plugin-command.js';
import { didYouMean } from './util/suggest.js';
import { HOST_VERSION } from './version.js';

const COMMANDS = ['serve', 'plugin', 'export', 'import', 'admin', 'help', 'version', ...ONLINE_COMMANDS];

const SERVE_USAGE =
  'usage: svc serve [--host H] [--port P] [--https-port P|off] [--tls-cert F --tls-key F] [--allowed-hosts A,B] [--data-dir D] [--database-url URL] [--database-schema S] [--plugins-dir A:B] [--log-level L] ' +
  '[--log-format pretty|json] [--access-log true|false] [--request-metrics true|false] [--watch-history N] [--max-watches-per-user N]\n  Every flag also reads from its SVC_* environment variable (docs/api.md "Settings").';
const USAGE = `${SERVE_USAGE}\n       svc --version\n       ${PLUGIN_USAGE}
       ${firstLine(EXPORT_USAGE)}\n       ${firstLine(IMPORT_USAGE)}\n       ${ADMIN_USAGE}\n       ${ONLINE_USAGE}`;

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!;
}

async function serve(args: string[]): Promise<void> {
  // Asking for help or the version never starts anything.
  if (args.includes('--help') || args.includes('-h')) return void console.log(SERVE_USAGE);
  if (args.includes('--version')) return void console.log(`svc ${HOST_VERSION}`);
  // Loaded here, so that the plugin author's commands do not load the server (and its database drivers).
  const { loadConfig, settingsFromArgs } = await import('./config.js');
  const { createServer } = await import('./main.js');
  let settings: ReturnType<typeof settingsFromArgs>;
  try {
    settings = settingsFromArgs(args, process.env);
  } catch (error) {
    // A mistake in the command line is a usage error (exit 2), as an unknown command is.
    console.error(`svc: ${(error as Error).message}\n${SERVE_USAGE}`);
    process.exitCode = 2;
    return;
  }
  // `npm start` passes --default-plugins: the repository's plugins/ folder unless SVC_PLUGINS_DIR is set.
  if (args.includes('--default-plugins') && settings.SVC_PLUGINS_DIR === undefined) {
    settings.SVC_PLUGINS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../plugins');
  }
  const config = loadConfig(settings);
  const server = await createServer(config);
  const url = await server.listen();
  console.log(`svc listening on ${url}`);
  if (server.httpsUrl) {
    const trust = server.caFile
      ? ` (clients trust ${server.caFile}; \`svc kubeconfig\` writes a kubeconfig for it)`
      : '';
    console.log(`svc listening on ${server.httpsUrl}${trust}`);
  }
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
    case 'login':
    case 'logout':
    case 'get':
    case 'apply':
    case 'delete':
    case 'watch':
    case 'token':
    case 'kubeconfig':
      process.exitCode = await onlineCommand(command, rest);
      return;
    case 'export':
      process.exitCode = await exportCommand(rest);
      return;
    case 'import':
      // The models the server registers itself, whose objects the import checks fully; loaded only for it.
      process.exitCode = await importCommand(rest, (await import('./main.js')).CORE_MODELS);
      return;
    case 'admin':
      process.exitCode = await adminCommand(rest);
      return;
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    case 'version':
    case '--version':
      console.log(`svc ${HOST_VERSION}`);
      return;
    default:
      console.error(`unknown command "${command}"${didYouMean(command, COMMANDS)}\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`svc: ${(error as Error).message}`);
  process.exit(1);
});
