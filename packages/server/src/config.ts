import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { didYouMean } from './util/suggest.js';

/** The settings (docs/api.md "Settings"). */
export interface Config {
  host: string;
  port: number;
  /** The HTTPS listener's port (SVC_HTTPS_PORT), or undefined when it is off. */
  httpsPort?: number;
  /** The user's own certificate and key (PEM files); unset = a CA and certificate made under `<dataDir>/tls`. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Host names and addresses the made certificate must name besides localhost (SVC_TLS_HOSTS). */
  tlsHosts: string[];
  /**
   * The `Host` names svc answers besides loopback ones, the listen host and the TLS hosts (SVC_ALLOWED_HOSTS); `*`
   * allows any. Unset: any host when listening on a non-loopback address, else only those (api/allowed-hosts.ts).
   */
  allowedHosts?: string[];
  dataDir: string;
  /** Unset = embedded SQLite in dataDir; `postgres://…` = PostgreSQL. */
  databaseUrl?: string;
  /** The PostgreSQL schema holding svc's tables (SVC_DATABASE_SCHEMA); unset = `public`. */
  databaseSchema?: string;
  /**
   * This server's name among replicas of a PostgreSQL store (SVC_REPLICA_ID): in Plugin status and the leader lease.
   * Default: the host name and a digest of the data directory, so it stays the same across restarts.
   */
  replicaId: string;
  /** SVC_SQLITE_SYNC: when a commit to the embedded database is durable (see store/sqlite.ts); default `normal`. */
  sqliteSync: 'normal' | 'full';
  /**
   * SVC_CONTROLLERS (default on): off makes this server serve the API only. It never leads, so no reconciler, garbage
   * collection or history compaction runs here; with replicas, another one leads.
   */
  controllers: boolean;
  /**
   * SVC_INDEX_SNAPSHOTS: `on` (default: models of 10,000 objects or more), `off`, or that minimum as a number. At
   * shutdown such models' indexes are written to the store, so the next start reads them instead of every object.
   */
  indexSnapshotMinObjects: number | undefined;
  pluginsDirs: string[];
  adminUsername: string;
  adminPassword?: string;
  /** HTTP Basic authentication (`Authorization: Basic`); off unless SVC_BASIC_AUTH=true. */
  basicAuth: boolean;
  /** A login session unused for this long ends (SVC_SESSION_IDLE_TIMEOUT). */
  sessionIdleTimeoutMs: number;
  /** A login session ends this long after sign-in however busy (SVC_SESSION_MAX_AGE). */
  sessionMaxAgeMs: number;
  logLevel: string;
  /** `pretty` (coloured text) or `json` lines (SVC_LOG_FORMAT); unset: pretty when stdout is a terminal. */
  logFormat?: 'pretty' | 'json';
  /** One info line per answered request (SVC_ACCESS_LOG, default true). */
  accessLog: boolean;
  /**
   * SVC_REQUEST_METRICS (default on): every request counted and timed in `/metrics` (`apiserver_request_total`,
   * `apiserver_request_duration_seconds`); off, neither family is there and a request pays nothing for them.
   */
  requestMetrics: boolean;
  /** Change events kept for watches to resume from (older ones are compacted away). */
  watchHistory: number;
  /**
   * SVC_MAX_WATCHES_PER_USER (default 100): the streams one caller may hold open at once, watches (WebSocket and
   * `?watch=true`) and console event streams together; a signed-in user's across all their sessions and tokens, an
   * anonymous caller's per client address. Super administrators too.
   */
  maxWatchesPerUser: number;
  /**
   * Which peers may say who the client is through `X-Forwarded-For` (SVC_TRUST_PROXY): `false` (the socket's address
   * is the client), `true` (any peer), a number of proxy hops, or a comma-separated list of addresses and CIDRs.
   */
  trustProxy: boolean | number | string;
}

export type Settings = Record<string, string | undefined>;

const FLAGS: Record<string, string> = {
  '--host': 'SVC_HOST',
  '--port': 'SVC_PORT',
  '--https-port': 'SVC_HTTPS_PORT',
  '--tls-cert': 'SVC_TLS_CERT',
  '--tls-key': 'SVC_TLS_KEY',
  '--allowed-hosts': 'SVC_ALLOWED_HOSTS',
  '--data-dir': 'SVC_DATA_DIR',
  '--database-url': 'SVC_DATABASE_URL',
  '--database-schema': 'SVC_DATABASE_SCHEMA',
  '--replica-id': 'SVC_REPLICA_ID',
  '--controllers': 'SVC_CONTROLLERS',
  '--index-snapshots': 'SVC_INDEX_SNAPSHOTS',
  '--plugins-dir': 'SVC_PLUGINS_DIR',
  '--admin-username': 'SVC_ADMIN_USERNAME',
  '--log-level': 'SVC_LOG_LEVEL',
  '--log-format': 'SVC_LOG_FORMAT',
  '--access-log': 'SVC_ACCESS_LOG',
  '--request-metrics': 'SVC_REQUEST_METRICS',
  '--watch-history': 'SVC_WATCH_HISTORY',
  '--max-watches-per-user': 'SVC_MAX_WATCHES_PER_USER',
};

/** Flags of `svc serve` that take no value. */
const SWITCHES = ['--default-plugins', '--help', '--version'];

/**
 * Command-line flags override environment variables of the same name (`--data-dir x` or `--data-dir=x`). An unknown
 * flag or a stray argument is an error naming the closest flag, not something silently ignored.
 */
export function settingsFromArgs(args: string[], env: Settings): Settings {
  const settings: Settings = { ...env };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (SWITCHES.includes(flag) || flag === '-h') continue;
    const name = FLAGS[flag];
    if (!name) throw new Error(unknownFlag(flag));
    const value = inline ?? args[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    settings[name] = value;
  }
  return settings;
}

function unknownFlag(flag: string): string {
  if (!flag.startsWith('-')) return `unexpected argument "${flag}" (svc serve takes only flags)`;
  return `unknown flag "${flag}"${didYouMean(flag, [...Object.keys(FLAGS), ...SWITCHES])}`;
}

export function loadConfig(settings: Settings): Config {
  const port = Number(settings.SVC_PORT ?? 8090);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SVC_PORT must be a port number (0 picks a free one), got "${settings.SVC_PORT}"`);
  }
  const httpsPort = httpsPortSetting(settings.SVC_HTTPS_PORT);
  const databaseUrl = settings.SVC_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('SVC_DATABASE_URL must be a postgres:// URL (unset it to use the embedded SQLite store)');
  }
  const watchHistory = Number(settings.SVC_WATCH_HISTORY || 100_000);
  if (!Number.isSafeInteger(watchHistory) || watchHistory < 1) {
    throw new Error(
      `SVC_WATCH_HISTORY must be a whole number of events, at least 1, got "${settings.SVC_WATCH_HISTORY}"`,
    );
  }
  const maxWatchesPerUser = Number(settings.SVC_MAX_WATCHES_PER_USER || DEFAULT_MAX_WATCHES_PER_USER);
  if (!Number.isSafeInteger(maxWatchesPerUser) || maxWatchesPerUser < 1) {
    throw new Error(
      `SVC_MAX_WATCHES_PER_USER must be a whole number of open streams, at least 1, got "${settings.SVC_MAX_WATCHES_PER_USER}"`,
    );
  }
  const sessionIdleTimeoutMs = durationSetting(settings, 'SVC_SESSION_IDLE_TIMEOUT', '1h');
  const sessionMaxAgeMs = durationSetting(settings, 'SVC_SESSION_MAX_AGE', '24h');
  return {
    host: settings.SVC_HOST || '127.0.0.1',
    port,
    httpsPort,
    tlsCertFile: settings.SVC_TLS_CERT ? path.resolve(settings.SVC_TLS_CERT) : undefined,
    tlsKeyFile: settings.SVC_TLS_KEY ? path.resolve(settings.SVC_TLS_KEY) : undefined,
    tlsHosts: (settings.SVC_TLS_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== ''),
    allowedHosts: allowedHostsSetting(settings.SVC_ALLOWED_HOSTS),
    dataDir: path.resolve(settings.SVC_DATA_DIR || './data'),
    databaseUrl,
    databaseSchema: settings.SVC_DATABASE_SCHEMA || undefined,
    replicaId: settings.SVC_REPLICA_ID || defaultReplicaId(path.resolve(settings.SVC_DATA_DIR || './data')),
    pluginsDirs: (settings.SVC_PLUGINS_DIR ?? '')
      .split(':')
      .filter((p) => p !== '')
      .map((p) => path.resolve(p)),
    adminUsername: settings.SVC_ADMIN_USERNAME || 'admin',
    adminPassword: settings.SVC_ADMIN_PASSWORD || undefined,
    basicAuth: booleanSetting(settings, 'SVC_BASIC_AUTH', false),
    sessionIdleTimeoutMs,
    sessionMaxAgeMs,
    logLevel: settings.SVC_LOG_LEVEL || 'info',
    logFormat: logFormatSetting(settings.SVC_LOG_FORMAT),
    accessLog: booleanSetting(settings, 'SVC_ACCESS_LOG', true),
    requestMetrics: booleanSetting(settings, 'SVC_REQUEST_METRICS', true),
    watchHistory,
    maxWatchesPerUser,
    trustProxy: trustProxySetting(settings.SVC_TRUST_PROXY),
    sqliteSync: sqliteSyncSetting(settings.SVC_SQLITE_SYNC),
    controllers: booleanSetting(settings, 'SVC_CONTROLLERS', true),
    indexSnapshotMinObjects: indexSnapshotsSetting(settings.SVC_INDEX_SNAPSHOTS),
  };
}

export const DEFAULT_INDEX_SNAPSHOT_MIN_OBJECTS = 10_000;

/**
 * Open streams per caller. A console tab holds its event stream and a few watches, kubectl one per `--watch`: 100 is
 * far above either, and bounds the memory and hub subscriptions one caller's streams take.
 */
export const DEFAULT_MAX_WATCHES_PER_USER = 100;

function indexSnapshotsSetting(raw: string | undefined): number | undefined {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'on' || value === 'true') return DEFAULT_INDEX_SNAPSHOT_MIN_OBJECTS;
  if (value === 'off' || value === 'false') return undefined;
  if (/^[1-9][0-9]*$/.test(value)) return Number(value);
  throw new Error(
    `SVC_INDEX_SNAPSHOTS must be on, off or the least number of objects a model needs to get one, got "${raw}"`,
  );
}

function sqliteSyncSetting(raw: string | undefined): Config['sqliteSync'] {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'normal') return 'normal';
  if (value === 'full') return 'full';
  throw new Error(`SVC_SQLITE_SYNC must be normal or full, got "${raw}"`);
}

function logFormatSetting(raw: string | undefined): Config['logFormat'] {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return undefined;
  if (value === 'pretty' || value === 'json') return value;
  throw new Error(`SVC_LOG_FORMAT must be pretty or json (unset: pretty on a terminal, else json), got "${raw}"`);
}

/** `off` turns the HTTPS listener off; otherwise a port (default 8443, `0` picks a free one). */
function httpsPortSetting(raw: string | undefined): number | undefined {
  const value = (raw ?? '').trim();
  if (/^(off|false|no)$/i.test(value)) return undefined;
  const port = Number(value || 8443);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SVC_HTTPS_PORT must be a port number (0 picks a free one) or "off", got "${raw}"`);
  }
  return port;
}

/** A DNS name: labels of letters, digits and inner hyphens, dot-separated (a trailing dot allowed). */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

/** Comma-separated host names and addresses (IPv6 with or without brackets), no ports; `*` alone allows any. */
function allowedHostsSetting(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  const bad = hosts.find((h) => h !== '*' && isIP(h.replace(/^\[(.*)\]$/, '$1')) === 0 && !HOST_NAME.test(h));
  if (bad !== undefined) {
    throw new Error(
      `SVC_ALLOWED_HOSTS must be comma-separated host names or addresses without a port (or *), got "${bad}"`,
    );
  }
  return hosts;
}

function trustProxySetting(raw: string | undefined): boolean | number | string {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|0|no|off)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(value)) {
    throw new Error(`SVC_TRUST_PROXY must be true, false, a number of hops or a list of addresses/CIDRs, got "${raw}"`);
  }
  return value;
}

function booleanSetting(settings: Settings, name: string, fallback: boolean): boolean {
  const raw = (settings[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === 'true' || raw === '1' || raw === 'yes' || raw === 'on') return true;
  if (raw === 'false' || raw === '0' || raw === 'no' || raw === 'off') return false;
  throw new Error(`${name} must be true or false, got "${settings[name]}"`);
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `90s`, `30m`, `12h` or `7d` (a bare number is seconds), in milliseconds. */
function durationSetting(settings: Settings, name: string, fallback: string): number {
  const raw = (settings[name] || fallback).trim();
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
  const ms = match ? Number(match[1]) * DURATION_UNITS[match[2] || 's']! : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new Error(`${name} must be a positive duration such as 30m, 12h or 7d, got "${settings[name]}"`);
  }
  return ms;
}

/** `<host>-<6 hex digits of the data directory's path>`: stable across restarts, different per data directory. */
function defaultReplicaId(dataDir: string): string {
  return `${hostname()}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 6)}`;
}
