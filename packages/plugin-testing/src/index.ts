/**
 * A plugin's test harness: a real svc started in this process on a temporary SQLite database, with the plugin folders
 * given loaded and started, and a client signed in as its super administrator.
 *
 * ```ts
 * const svc = await startSvc({ plugins: [path.resolve('.')] });
 * const persons = svc.client.resource({ group: 'people.svc.run', version: 'v1alpha1', plural: 'persons' });
 * await persons.create({ ... });
 * await svc.close();
 * ```
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SvcClient } from '@svc/client';
import { apisPath, PLUGIN_GROUP, type PluginStatus } from '@svc/plugin-api';
import { createServer, loadConfig, type Server } from 'svc-run';
import { parse } from 'yaml';

export interface StartSvcOptions {
  /** Plugin folders (each holding a `plugin.yaml` and its built entry), loaded in place and started. */
  plugins?: string[];
  /** Further settings, as environment variables (`SVC_LOG_LEVEL`, …); see svc's docs/configuration.md. */
  env?: Record<string, string>;
  /** Resolve even when a plugin does not start (default: refuse, naming the plugin and why). */
  allowFailedPlugins?: boolean;
}

export interface TestSvc {
  /** Where it listens: `http://127.0.0.1:<port>`. */
  url: string;
  /** A client signed in as the super administrator. */
  client: SvcClient;
  /** The super administrator's credentials, to sign in other clients (or a browser). */
  admin: { username: string; password: string };
  /** The server itself, for what HTTP does not show. */
  server: Server;
  /** The temporary data folder (the SQLite database, installed plugins); removed by `close`. */
  dataDir: string;
  /** A plugin's status as svc reports it (its phase, and why when it FAILED). */
  pluginStatus(name: string): Promise<PluginStatus | undefined>;
  /** Stops the server and removes its data. */
  close(): Promise<void>;
}

/** Starts svc with the plugins; answers once they have started (or throws why one did not). */
export async function startSvc(options: StartSvcOptions = {}): Promise<TestSvc> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-test-'));
  // SVC_PLUGINS_DIR loads the plugin sub-folders of a folder: each plugin is linked into one of the harness's own.
  const pluginsDir = path.join(dataDir, 'plugins-under-test');
  await mkdir(pluginsDir);
  const names: string[] = [];
  for (const [i, folder] of (options.plugins ?? []).entries()) {
    names.push(await pluginName(folder));
    await symlink(path.resolve(folder), path.join(pluginsDir, `${i}-${path.basename(folder)}`), 'dir');
  }
  const admin = { username: 'admin', password: randomBytes(18).toString('base64url') };
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_HTTPS_PORT: 'off',
    SVC_PLUGINS_DIR: pluginsDir,
    SVC_ADMIN_USERNAME: admin.username,
    SVC_ADMIN_PASSWORD: admin.password,
    SVC_LOG_LEVEL: 'warn',
    ...options.env,
  });
  let server: Server | undefined;
  const close = async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    server = await createServer(config);
    const url = await server.listen();
    const client = new SvcClient({ baseUrl: url });
    await client.signIn(admin.username, admin.password);
    const pluginStatus = async (name: string) => {
      const plugin = await client.request<{ status?: PluginStatus }>(
        'GET',
        `${apisPath(PLUGIN_GROUP)}/plugins/${encodeURIComponent(name)}`,
      );
      return plugin.status;
    };
    if (!options.allowFailedPlugins) {
      for (const name of names) {
        const status = await pluginStatus(name);
        if (status?.phase !== 'STARTED') {
          const why = status?.conditions?.find((c) => c.type === 'Ready')?.message ?? 'no status';
          throw new Error(`plugin "${name}" did not start (${status?.phase ?? 'unknown'}): ${why}`);
        }
      }
    }
    return { url, client, admin, server, dataDir, pluginStatus, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The name in a plugin folder's `plugin.yaml` (svc validates the rest when it loads it). */
async function pluginName(folder: string): Promise<string> {
  const file = path.join(folder, 'plugin.yaml');
  const text = await readFile(file, 'utf8').catch(() => {
    throw new Error(`${file} not found: a plugin folder holds its plugin.yaml`);
  });
  const name = (parse(text) as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  if (typeof name !== 'string') throw new Error(`${file} names no plugin (metadata.name)`);
  return name;
}
