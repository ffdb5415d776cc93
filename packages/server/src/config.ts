import path from 'node:path';

/** The settings of CONTRACT section 1. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Unset = embedded SQLite in dataDir; `postgres://…` = PostgreSQL. */
  databaseUrl?: string;
  pluginsDirs: string[];
  adminUsername: string;
  adminPassword?: string;
  logLevel: string;
}

export type Settings = Record<string, string | undefined>;

const FLAGS: Record<string, string> = {
  '--host': 'SVC_HOST',
  '--port': 'SVC_PORT',
  '--data-dir': 'SVC_DATA_DIR',
  '--database-url': 'SVC_DATABASE_URL',
  '--plugins-dir': 'SVC_PLUGINS_DIR',
  '--admin-username': 'SVC_ADMIN_USERNAME',
  '--log-level': 'SVC_LOG_LEVEL',
};

/** Command-line flags override environment variables of the same name (`--data-dir x` or `--data-dir=x`). */
export function settingsFromArgs(args: string[], env: Settings): Settings {
  const settings: Settings = { ...env };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const name = FLAGS[flag];
    if (!name) continue;
    const value = inline ?? args[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    settings[name] = value;
  }
  return settings;
}

export function loadConfig(settings: Settings): Config {
  const port = Number(settings.SVC_PORT ?? 8090);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SVC_PORT must be a port number (0 picks a free one), got "${settings.SVC_PORT}"`);
  }
  const databaseUrl = settings.SVC_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('SVC_DATABASE_URL must be a postgres:// URL (unset it to use the embedded SQLite store)');
  }
  return {
    host: settings.SVC_HOST || '127.0.0.1',
    port,
    dataDir: path.resolve(settings.SVC_DATA_DIR || './data'),
    databaseUrl,
    pluginsDirs: (settings.SVC_PLUGINS_DIR ?? '')
      .split(':')
      .filter((p) => p !== '')
      .map((p) => path.resolve(p)),
    adminUsername: settings.SVC_ADMIN_USERNAME || 'admin',
    adminPassword: settings.SVC_ADMIN_PASSWORD || undefined,
    logLevel: settings.SVC_LOG_LEVEL || 'info',
  };
}
