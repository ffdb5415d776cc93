#!/usr/bin/env node
import { adminCommand } from './cli/admin-command.js';
import { exportCommand } from './cli/export-command.js';
import { importCommand } from './cli/import-command.js';
import { onlineCommand } from './cli/online/commands.js';
import { pluginCommand } from './cli/plugin-command.js';
import { columns } from './util/columns.js';
import { firstExistingPath } from './util/package-layout.js';
import { didYouMean } from './util/suggest.js';
import { HOST_VERSION } from './version.js';

/** Every command, as `svc --help` lists it; each answers --help with its own flags. */
const COMMAND_GROUPS: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]> = [
  [
    'Serving',
    [
      ['serve', 'run the server (svc serve --help lists every setting)'],
      ['version', 'print the version (also --version)'],
    ],
  ],
  [
    'Writing plugins',
    [
      ['plugin create', 'scaffold a plugin'],
      ['plugin pack', 'archive a built plugin for upload'],
    ],
  ],
  [
    'Using a running server',
    [
      ['login', 'sign in and keep a token for the commands below'],
      ['logout', 'delete that token'],
      ['get', "list a resource's objects, or show one"],
      ['apply', 'create or update the objects of a YAML file'],
      ['delete', 'delete objects'],
      ['watch', 'print the objects, then every change'],
      ['token create', 'create a personal access token'],
      ['token list', 'list your tokens, by the names you gave them'],
      ['kubeconfig', 'write a kubeconfig for kubectl'],
      ['plugin', 'manage plugins: install, enable, disable, upgrade, uninstall, logs'],
    ],
  ],
  [
    'On the store itself, no server needed',
    [
      ['export', 'write a backup of every object'],
      ['import', 'restore a backup into an empty store'],
      ['admin reset-password', 'set a lost password'],
    ],
  ],
];

const COMMANDS = [...new Set(COMMAND_GROUPS.flatMap(([, rows]) => rows.map(([name]) => name.split(' ')[0]!))), 'help'];

function usage(): string {
  const rows = COMMAND_GROUPS.flatMap(([, commands]) => commands.map(([name, summary]) => [name, summary]));
  const lines = columns(rows);
  const groups = COMMAND_GROUPS.map(([title, commands]) => [
    `${title}:`,
    ...lines.splice(0, commands.length).map((line) => `  ${line}`),
  ]);
  return ['usage: svc <command> [arguments] [flags]', ...groups.flatMap((g) => ['', ...g])]
    .concat('', `Each command answers --help with its flags (svc get --help). More: ${CLI_DOCS}`)
    .join('\n');
}

/**
 * `npm start` (and `svc serve --default-plugins`) loads the example plugin, unless a setting names folders: the
 * installed package's examples/, or the repository's plugins/.
 */
const EXAMPLE_PLUGINS = firstExistingPath([
  new URL('../examples/', import.meta.url),
  new URL('../../../plugins/', import.meta.url),
]);

/** The command-line reference: the installed package's copy of docs/, or the repository's. */
const CLI_DOCS = firstExistingPath([
  new URL('../docs/cli.md', import.meta.url),
  new URL('../../../docs/cli.md', import.meta.url),
]);

async function serve(args: string[]): Promise<void> {
  // Asking for help or the version never starts anything.
  if (args.includes('--help') || args.includes('-h')) {
    return void console.log((await import('./settings/usage.js')).serveUsage());
  }
  if (args.includes('--version')) return void console.log(`svc ${HOST_VERSION}`);
  // Loaded here, so that the plugin author's commands do not load the server (and its database drivers).
  const { loadConfig, settingsFromArgs, SettingError } = await import('./config.js');
  let config: ReturnType<typeof loadConfig>;
  try {
    const fallback = args.includes('--default-plugins') ? { pluginsDir: EXAMPLE_PLUGINS } : {};
    config = loadConfig(settingsFromArgs(args, process.env), { fallback });
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    // A mistake in a setting is a usage error (exit 2), as an unknown command is.
    console.error(`svc: ${error.message}\nsvc serve --help lists every setting.`);
    process.exitCode = 2;
    return;
  }
  const { createServer } = await import('./main.js');
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
    // The stop drains within SVC_SHUTDOWN_TIMEOUT (api/drain.ts); past it, the process goes whatever still runs.
    setTimeout(() => {
      server.logger.error(`the stop took longer than the shutdown timeout (${config.shutdownTimeoutMs} ms); exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
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
      console.log(usage());
      return;
    case 'version':
    case '--version':
      console.log(`svc ${HOST_VERSION}`);
      return;
    default:
      console.error(`unknown command "${command}"${didYouMean(command, COMMANDS)}\n${usage()}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`svc: ${(error as Error).message}`);
  process.exit(1);
});
