/** `svc plugin …`: the plugin author's commands (create, pack) and, through online/plugin-admin.ts, management. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PackError, packPlugin } from '../plugins/pack.js';
import { columns } from '../util/columns.js';
import { didYouMean } from '../util/suggest.js';
import { createPlugin, UsageError } from './create.js';
import { CONNECTION_USAGE } from './online/args.js';
import { PLUGIN_ADMIN_COMMANDS, PLUGIN_ADMIN_SYNOPSES, pluginAdminCommand } from './online/plugin-admin.js';
import { PLUGIN_DEV_SYNOPSIS, pluginDevCommand } from './plugin-dev.js';

export const PLUGIN_USAGE = `${columns([
  ['svc plugin create <name> [--dir PARENT]', 'scaffold a plugin in PARENT/<name> (default: .)'],
  ['svc plugin pack [folder] [--out DIR]', 'archive a built plugin folder (default: .) into DIR'],
  PLUGIN_DEV_SYNOPSIS,
  ...PLUGIN_ADMIN_SYNOPSES,
]).join('\n       ')}
${CONNECTION_USAGE}`;

const PLUGIN_COMMANDS = ['create', 'pack', 'dev', ...PLUGIN_ADMIN_COMMANDS];

/** Runs `svc plugin …` and returns the exit code: 0, 1 when the work failed, 2 for a usage mistake. */
export async function pluginCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'create':
        return await create(rest);
      case 'pack':
        return await pack(rest);
      case 'dev':
        return await pluginDevCommand(rest, process.env);
      case 'install':
      case 'enable':
      case 'disable':
      case 'upgrade':
      case 'uninstall':
      case 'logs':
        return await pluginAdminCommand(sub, rest, process.env);
      case 'help':
      case '--help':
      case '-h':
        return help();
      case undefined:
        throw new UsageError(`which command: ${PLUGIN_COMMANDS.join(', ')}?`, true);
      default:
        throw new UsageError(`unknown plugin command "${sub}"${didYouMean(sub, PLUGIN_COMMANDS)}`, true);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(
        `svc plugin${sub === undefined ? '' : ` ${sub}`}: ${error.message}${error.showUsage ? `\nusage: ${PLUGIN_USAGE}` : ''}`,
      );
      return 2;
    }
    if (error instanceof PackError) {
      console.error(`svc plugin pack: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

async function create(args: string[]): Promise<number> {
  const { positionals, values } = usage(() =>
    parseArgs({ args, options: { dir: { type: 'string' }, help: HELP }, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length !== 1)
    throw new UsageError(positionals.length === 0 ? 'a plugin name is required' : 'one plugin name only', true);
  const name = positionals[0]!;
  const { folder, files } = await createPlugin(name, values.dir ?? process.cwd());
  const shown = path.relative(process.cwd(), folder) || '.';
  console.log(`Created plugin ${name} in ${folder} (${files.length} files).

Next:
  cd ${shown}
  npm install
  npm run build && npm test
  npm run dev           # on each save, rebuild and upgrade it in the svc of \`svc login\`
  npm run pack          # the archive to install, packed by the svc in node_modules (from vendor/)`);
  return 0;
}

async function pack(args: string[]): Promise<number> {
  const { positionals, values } = usage(() =>
    parseArgs({ args, options: { out: { type: 'string' }, help: HELP }, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length > 1) throw new UsageError('one plugin folder only', true);
  const result = await packPlugin(positionals[0] ?? process.cwd(), values.out ?? process.cwd());
  for (const warning of result.warnings) console.error(`warning: ${warning}`);
  console.log(`Packed ${result.name} ${result.version} (${result.entries} entries): ${result.file}`);
  return 0;
}

const HELP = { type: 'boolean', short: 'h' } as const;

function help(): number {
  console.log(`usage: ${PLUGIN_USAGE}`);
  return 0;
}

/** Runs an argument parser, turning its complaints (an unknown option, a missing value) into usage errors. */
function usage<R>(parse: () => R): R {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message, true);
  }
}
