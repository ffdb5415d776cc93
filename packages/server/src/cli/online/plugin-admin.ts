/** `svc plugin install|enable|disable|upgrade|uninstall|logs`: the console's plugin management, from a terminal. */

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SvcApiError, type SvcClient } from '@svc/client';
import { apisPath, CONSOLE_API, PLUGIN_GROUP } from '@svc/plugin-api';
import { columns } from '../../util/columns.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parse, UsageError, wantsHelp } from './args.js';
import { connect } from './connect.js';
import { runCommand } from './report.js';

/** Each management command's synopsis and what it does: `svc plugin --help` aligns them with create and pack. */
export const PLUGIN_ADMIN_SYNOPSES = [
  ['svc plugin install <archive>', 'upload a .tgz or .zip (installed, not started)'],
  ['svc plugin enable|disable <name>', 'start or stop it, waiting for the outcome'],
  ['svc plugin upgrade <name> <archive>', 'replace its code (rolled back if the new code fails to start)'],
  ['svc plugin uninstall <name> [--data keep|delete]', 'remove it; its data stays unless --data delete'],
  ['svc plugin logs <name>', 'what it logged during its latest start'],
] as const;

export const PLUGIN_ADMIN_USAGE = `${columns(PLUGIN_ADMIN_SYNOPSES).join('\n       ')}
${CONNECTION_USAGE}`;

export const PLUGIN_ADMIN_COMMANDS = ['install', 'enable', 'disable', 'upgrade', 'uninstall', 'logs'] as const;

const CONSOLE = `${CONSOLE_API}/plugins`;
const OBJECTS = `${apisPath(PLUGIN_GROUP)}/plugins`;
/** How long `uninstall` waits to say it is done; the uninstall itself goes on after. */
const UNINSTALL_WAIT_MS = 60_000;
/** How many positionals each command takes. */
const ARITY: Record<string, number> = { install: 1, enable: 1, disable: 1, upgrade: 2, uninstall: 1, logs: 1 };

/** `status.lastUpgrade`: an upgrade whose start failed, rolled back. */
interface FailedUpgrade {
  version: string;
  archiveDigest?: string;
  message: string;
  rolledBackTo: { version: string };
}

interface PluginObject {
  metadata: { name: string };
  spec?: { version?: string };
  status?: { phase?: string; conditions?: Array<{ message?: string }>; lastUpgrade?: FailedUpgrade };
}

export function pluginAdminCommand(sub: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand(`plugin ${sub}`, PLUGIN_ADMIN_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${PLUGIN_ADMIN_USAGE}`);
    const { values, positionals } = parse(args, { ...CONNECTION_OPTIONS, data: { type: 'string' } });
    if (positionals.length !== ARITY[sub]) {
      throw new UsageError(`${sub} takes ${ARITY[sub] === 2 ? 'a plugin name and an archive' : 'one argument'}`);
    }
    const data = dataChoice(sub, values.data);
    const client = await connect(values, env);
    const [first, second] = positionals as [string, string | undefined];
    const name = encodeURIComponent(first);
    switch (sub) {
      case 'install':
        return show('installed', await upload(client, `${CONSOLE}/install`, first));
      case 'upgrade': {
        const archive = await readFile(second!);
        const object = await upload(client, `${CONSOLE}/${name}/upgrade`, second!, archive);
        const failed = object.status?.lastUpgrade;
        // This upload's own rollback: a failure reported of another archive is an earlier one.
        if (!failed || failed.archiveDigest !== createHash('sha256').update(archive).digest('hex')) {
          return show('upgraded', object);
        }
        console.log(`plugin/${first}: ${rollbackLine(failed)} (${object.status?.phase ?? 'unknown'})`);
        return 1;
      }
      case 'enable':
      case 'disable': {
        const body = { enable: sub === 'enable' };
        const object = await client.request<PluginObject>('PUT', `${CONSOLE}/${name}/plugin-state`, { body });
        show(`${sub}d`, object);
        return object.status?.phase === 'FAILED' ? 1 : 0;
      }
      case 'uninstall': {
        await client.request('DELETE', `${OBJECTS}/${name}`, { query: { data } });
        const gone = await untilGone(client, `${OBJECTS}/${name}`);
        const what = data === 'delete' ? 'deleted' : 'kept';
        return void console.log(
          gone
            ? `plugin/${first} uninstalled, its data ${what}`
            : `plugin/${first} is being uninstalled (its data ${what})`,
        );
      }
      default: {
        const logs = await client.request<{
          phase?: string;
          reason?: string;
          version?: string;
          lastUpgrade?: FailedUpgrade;
          entries: LogEntry[];
        }>('GET', `${CONSOLE}/${name}/logs`);
        for (const e of logs.entries) console.log(`${e.time} ${e.level.toUpperCase().padEnd(5)} ${e.message}`);
        if (logs.lastUpgrade) console.log(rollbackLine(logs.lastUpgrade));
        if (logs.version) console.log(`version: ${logs.version}`);
        console.log(`phase: ${logs.phase ?? 'unknown'}${logs.reason ? ` (${logs.reason})` : ''}`);
      }
    }
  });
}

/** `--data` of uninstall: keep (the default: nothing is lost) or delete. */
function dataChoice(sub: string, data: string | undefined): 'keep' | 'delete' {
  if (data !== undefined && sub !== 'uninstall') throw new UsageError('--data is a flag of uninstall only');
  if (data === undefined || data === 'keep' || data === 'delete') return data ?? 'keep';
  throw new UsageError(`--data takes keep or delete, not "${data}"`);
}

/** Waits (bounded) until the Plugin object is gone: the uninstall finalizer has done its work. */
async function untilGone(client: SvcClient, url: string): Promise<boolean> {
  const deadline = Date.now() + UNINSTALL_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await client.request('GET', url);
    } catch (error) {
      if (error instanceof SvcApiError && error.status === 404) return true;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

interface LogEntry {
  time: string;
  level: string;
  message: string;
}

function rollbackLine(failed: FailedUpgrade): string {
  return `the upgrade to ${failed.version} failed to start (${failed.message}); rolled back to ${failed.rolledBackTo.version}`;
}

async function upload(
  client: SvcClient,
  url: string,
  archive: string,
  content?: Buffer<ArrayBuffer>,
): Promise<PluginObject> {
  const form = new FormData();
  form.append('file', new Blob([content ?? (await readFile(archive))]), path.basename(archive));
  return client.request<PluginObject>('POST', url, { body: form });
}

function show(what: string, object: PluginObject): void {
  const phase = object.status?.phase;
  const reason = phase === 'FAILED' ? object.status?.conditions?.[0]?.message : undefined;
  const version = object.spec?.version ? ` ${object.spec.version}` : '';
  console.log(
    `plugin/${object.metadata.name}${version} ${what}${phase ? ` (${phase})` : ''}${reason ? `: ${reason}` : ''}`,
  );
}
