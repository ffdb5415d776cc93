/**
 * `svc plugin dev [folder]`: the author's loop. Watches the plugin's sources and, on each save, builds it (its
 * `build:server` script, else its TypeScript sources with the types stripped: dev-build.ts), packs it and installs or upgrades it in a running svc, saying how long the
 * save took to be served. Authenticates like the other online commands (`svc login`, --server, --token).
 */

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SvcApiError, type SvcClient } from '@svc/client';
import { apisPath, CONSOLE_API, PLUGIN_DEV_UI_ANNOTATION, PLUGIN_GROUP } from '@svc/plugin-api';
import { packPlugin } from '../plugins/pack.js';
import { stripTypesBuild } from './dev-build.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parse, UsageError, wantsHelp } from './online/args.js';
import { connect } from './online/connect.js';
import { CommandError, describeError, runCommand } from './online/report.js';

export const PLUGIN_DEV_SYNOPSIS = [
  'svc plugin dev [folder] [--build CMD] [--ui URL]',
  'rebuild, pack and upgrade the plugin in a running svc on each save',
] as const;

const USAGE = `${PLUGIN_DEV_SYNOPSIS[0]}\n${CONNECTION_USAGE}`;
const PLUGINS = `${CONSOLE_API}/plugins`;
const OBJECTS = `${apisPath(PLUGIN_GROUP)}/plugins`;
/** Saves within this window are one change (an editor writes a file in several steps). */
const SETTLE_MS = 40;
/** What the loop does not watch: its own output, dependencies, the UI (Vite serves and reloads it). */
const IGNORED = /^(node_modules|dist|ui|vendor|\.git|coverage)([\\/]|$)|\.(tgz|zip|tsbuildinfo)$|~$|\.swp$/;

interface PluginObject {
  metadata: { name: string };
  spec?: { version?: string };
  status?: {
    phase?: string;
    conditions?: Array<{ message?: string }>;
    lastUpgrade?: { archiveDigest?: string; message: string };
  };
}

export function pluginDevCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('plugin dev', USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${USAGE}`);
    const { values, positionals } = parse(args, {
      ...CONNECTION_OPTIONS,
      build: { type: 'string' },
      ui: { type: 'string' },
    });
    if (values.ui !== undefined && !URL.canParse(values.ui)) {
      throw new UsageError(`--ui takes the URL of the UI entry on your Vite dev server, got "${values.ui}"`);
    }
    if (positionals.length > 1) throw new UsageError('one plugin folder only');
    const folder = path.resolve(positionals[0] ?? process.cwd());
    const build = values.build ?? (await defaultBuild(folder));
    const client = await connect(values, env);
    const loop = new DevLoop(folder, build, client, values.ui);
    await loop.cycle('start');
    loop.watch();
    console.log(`watching ${folder} (Ctrl-C stops)`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await loop.close();
  });
}

/**
 * The build a save runs: the package's `build:server` script (the server side alone; run directly, with its
 * node_modules/.bin on the PATH, as npm would, without npm's start-up), else the stripped sources (undefined).
 */
async function defaultBuild(folder: string): Promise<string | undefined> {
  try {
    return JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')).scripts?.['build:server'];
  } catch {
    return undefined;
  }
}

class DevLoop {
  private watcher?: FSWatcher;
  private running = false;
  private pending?: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly folder: string,
    private readonly build: string | undefined,
    private readonly client: SvcClient,
    /** The UI entry on the author's Vite dev server, which the console loads while the loop runs. */
    private readonly ui?: string,
  ) {}

  private name?: string;

  watch(): void {
    this.watcher = watch(this.folder, { recursive: true }, (_event, file) => {
      if (file && IGNORED.test(file.toString())) return;
      this.pending ??= Date.now();
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.next(), SETTLE_MS);
    });
  }

  /** Stops watching; the console goes back to the built UI bundle. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.watcher?.close();
    if (this.ui && this.name) await this.annotateUi(this.name, null).catch(() => undefined);
  }

  /** Points the console at the dev server's UI entry (null: back to the bundle), on the Plugin object. */
  private annotateUi(name: string, url: string | null): Promise<unknown> {
    return this.client.request('PATCH', `${OBJECTS}/${encodeURIComponent(name)}`, {
      body: { metadata: { annotations: { [PLUGIN_DEV_UI_ANNOTATION]: url } } },
      contentType: 'application/merge-patch+json',
    });
  }

  private async next(): Promise<void> {
    if (this.running || this.pending === undefined) return;
    const savedAt = this.pending;
    this.pending = undefined;
    await this.cycle(savedAt);
    if (this.pending !== undefined) await this.next();
  }

  /** One build, pack and upgrade; failures are reported and the loop waits for the next save. */
  async cycle(savedAt: number | 'start'): Promise<void> {
    this.running = true;
    const began = savedAt === 'start' ? Date.now() : savedAt;
    const out = await mkdtemp(path.join(tmpdir(), 'svc-plugin-dev-'));
    try {
      if (this.build) await run(this.build, this.folder);
      else await stripTypesBuild(this.folder);
      const packed = await packPlugin(this.folder, out);
      const { object, rolledBack } = await this.upgradeOrInstall(packed.name, packed.file);
      if (this.ui && this.name === undefined) await this.annotateUi(packed.name, this.ui);
      this.name = packed.name;
      const phase = object.status?.phase ?? 'unknown';
      const reason = phase === 'FAILED' ? `: ${object.status?.conditions?.[0]?.message ?? ''}` : '';
      const took = `${Date.now() - began} ms`;
      // The server put the code before back (docs/plugins.md "Upgrades and rollback"): it keeps serving.
      if (rolledBack) {
        console.log(
          `plugin/${packed.name} ${packed.version} failed to start (${rolledBack}); the code before serves — ${took}`,
        );
      } else console.log(`plugin/${packed.name} ${packed.version} ${phase}${reason} — ${took} from save to served`);
    } catch (error) {
      console.error(`svc plugin dev: ${describeError(error)}`);
    } finally {
      this.running = false;
      await rm(out, { recursive: true, force: true });
    }
  }

  /**
   * Upgrades the plugin (the server answers once it runs the new code, or why not: with the error, when it rolled the
   * upgrade back); the first time, installs it.
   */
  private async upgradeOrInstall(name: string, file: string): Promise<{ object: PluginObject; rolledBack?: string }> {
    const archive = await readFile(file);
    const form = () => {
      const body = new FormData();
      body.append('file', new Blob([archive]), path.basename(file));
      return body;
    };
    try {
      const object = await this.client.request<PluginObject>('POST', `${PLUGINS}/${encodeURIComponent(name)}/upgrade`, {
        body: form(),
      });
      const failed = object.status?.lastUpgrade;
      const digest = createHash('sha256').update(archive).digest('hex');
      return { object, rolledBack: failed?.archiveDigest === digest ? failed.message : undefined };
    } catch (error) {
      if (!(error instanceof SvcApiError && error.status === 404)) throw error;
    }
    await this.client.request('POST', `${PLUGINS}/install`, { body: form() });
    const object = await this.client.request<PluginObject>(
      'PUT',
      `${PLUGINS}/${encodeURIComponent(name)}/plugin-state`,
      { body: { enable: true } },
    );
    return { object };
  }
}

/** Runs a build command in the plugin folder, its output passed through; a failure names the command. */
function run(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const bin = path.join(cwd, 'node_modules', '.bin');
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    const child = spawn(command, { cwd, env, shell: true, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new CommandError(`${command} failed (exit ${code ?? 'signal'})`)),
    );
  });
}
