#!/usr/bin/env node
/**
 * The plugin author's `svc`: the commands a plugin folder's scripts run (`svc plugin pack`, `svc plugin dev`) and the
 * online ones they rely on (`svc login`, …), without the server. Bundled into one file with no dependencies
 * (scripts/bundle-plugin-cli.js), which `svc plugin create` packs into the new plugin's vendor/ folder: a plugin's
 * `npm run pack` then needs no global svc, no registry, and runs the svc of the host that made it.
 */
import { onlineCommand } from './cli/online/commands.js';
import { PLUGIN_USAGE, pluginCommand } from './cli/plugin-command.js';
import { HOST_VERSION } from './version.js';

const ONLINE = ['login', 'logout', 'get', 'apply', 'delete', 'watch', 'token', 'kubeconfig'];
const USAGE = `usage: svc plugin pack|dev|install|upgrade|… (see svc plugin help), svc ${ONLINE.join('|')}
This svc (${HOST_VERSION}, from the plugin's node_modules) has the plugin author's commands; the full svc has the others.`;

async function main([command, ...rest]: string[]): Promise<number> {
  if (command === 'plugin' && rest[0] === 'create') {
    console.error('svc plugin create: run it with the full svc (this one lives inside a plugin folder)');
    return 2;
  }
  if (command === 'plugin') return pluginCommand(rest);
  if (command !== undefined && ONLINE.includes(command)) return onlineCommand(command, rest);
  if (command === 'version' || command === '--version') {
    console.log(`svc ${HOST_VERSION}`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(`${USAGE}\n\n${PLUGIN_USAGE}`);
    return 0;
  }
  console.error(
    `svc: ${command === undefined ? 'which command?' : `"${command}" is not a plugin author's command`}\n${USAGE}`,
  );
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`svc: ${(error as Error).message}`);
    process.exit(1);
  },
);
