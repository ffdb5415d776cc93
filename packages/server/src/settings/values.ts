/**
 * The parsers of the settings' values. Each reads the text of a variable, a flag or a config file's value (a list's
 * items joined by its separator) and returns the typed value, or throws a message naming the setting and what it
 * takes. `raw` is already the default when nothing was given, or `''` for a setting without one.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { type Reading, SettingError } from './setting.js';

function refuse(at: Reading, takes: string, raw: string): SettingError {
  return new SettingError(`${at.name} must be ${takes}, got "${raw}"`);
}

type Parser<T> = (raw: string, at: Reading) => T;

/** A setting that may have no value: undefined then, else what `parse` makes of it. */
export function optional<T>(parse: Parser<T>): Parser<T | undefined> {
  return (raw, at) => (raw.trim() === '' ? undefined : parse(raw, at));
}

export const text = (raw: string): string => raw;

export const absolutePath = (raw: string, at: Reading): string => at.resolve(raw);

/** A size with its unit: `10M`, `100M`, `1G` (what a file may grow to). */
export function size(raw: string, at: Reading): string {
  const value = raw.trim().toUpperCase();
  if (!/^[1-9]\d*[KMG]$/.test(value)) throw refuse(at, 'a size such as 100M or 1G', raw);
  return value;
}

/** `:`-separated paths, each made absolute. */
export function paths(raw: string, at: Reading): string[] {
  return raw
    .split(':')
    .filter((p) => p !== '')
    .map((p) => at.resolve(p));
}

/** The items of a list setting, trimmed, without empty ones. */
export function items(raw: string, separator: ',' | ':'): string[] {
  return raw
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function port(takes: string) {
  return (raw: string, at: Reading): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > 65535) throw refuse(at, takes, raw);
    return value;
  };
}

/** A port, or `off` (also `false`, `no`) for a listener that is not started. */
export function portOrOff(takes: string) {
  const parsePort = port(takes);
  return (raw: string, at: Reading): number | undefined =>
    /^(off|false|no)$/i.test(raw.trim()) ? undefined : parsePort(raw, at);
}

/** A whole number, at least `least` (`Number` reads it, so `1e5` is 100000). */
export function wholeNumber(takes: string, least: number) {
  return (raw: string, at: Reading): number => {
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < least) throw refuse(at, takes, raw);
    return value;
  };
}

export function boolean(raw: string, at: Reading): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === '1' || value === 'yes' || value === 'on') return true;
  if (value === 'false' || value === '0' || value === 'no' || value === 'off') return false;
  throw refuse(at, 'true or false', raw);
}

/** One of `choices`, in any case. */
export function oneOf<const C extends string>(choices: readonly C[], takes: string) {
  return (raw: string, at: Reading): C => {
    const value = raw.trim().toLowerCase();
    if ((choices as readonly string[]).includes(value)) return value as C;
    throw refuse(at, takes, raw);
  };
}

/** One of `choices` exactly as written (pino's level names are case-sensitive). */
export function exactlyOneOf<const C extends string>(choices: readonly C[]) {
  return (raw: string, at: Reading): C => {
    if ((choices as readonly string[]).includes(raw)) return raw as C;
    throw refuse(at, `one of ${choices.join(', ')}`, raw);
  };
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `90s`, `30m`, `12h` or `7d` (a bare number is seconds), in milliseconds. */
export function duration(raw: string, at: Reading): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  const ms = match ? Number(match[1]) * DURATION_UNITS[match[2] || 's']! : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw refuse(at, 'a positive duration such as 30m, 12h or 7d', raw);
  return ms;
}

export function postgresUrl(raw: string, at: Reading): string {
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new SettingError(`${at.name} must be a postgres:// URL (unset it to use the embedded SQLite store)`);
  }
  return raw;
}

/** A DNS name: labels of letters, digits and inner hyphens, dot-separated (a trailing dot allowed). */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

/** Comma-separated host names and addresses (IPv6 with or without brackets), no ports; `*` alone allows any. */
export function allowedHosts(raw: string, at: Reading): string[] {
  const hosts = items(raw.toLowerCase(), ',');
  const bad = hosts.find((h) => h !== '*' && isIP(h.replace(/^\[(.*)\]$/, '$1')) === 0 && !HOST_NAME.test(h));
  if (bad !== undefined) {
    throw refuse(at, 'comma-separated host names or addresses without a port (or *)', bad);
  }
  return hosts;
}

/** Web origins, `scheme://host[:port]` each, as a browser sends them in `Origin` (lowercased, no path). */
export function origins(raw: string, at: Reading): string[] {
  const listed = items(raw, ',');
  for (const origin of listed) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.toLowerCase().replace(/\/$/, '')) {
      throw refuse(at, 'comma-separated origins such as https://app.example or http://localhost:5173', origin);
    }
  }
  return listed.map((origin) => origin.toLowerCase().replace(/\/$/, ''));
}

/** `true`, `false`, a number of proxy hops, or the comma-separated addresses and CIDRs of trusted proxies. */
export function trustProxy(raw: string, at: Reading): boolean | number | string {
  const value = raw.trim();
  if (/^(false|0|no|off)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(value)) {
    throw refuse(at, 'true, false, a number of hops or a list of addresses/CIDRs', raw);
  }
  return value;
}

export const DEFAULT_INDEX_SNAPSHOT_MIN_OBJECTS = 10_000;

/** `on` (models of 10,000 objects or more), `off`, or that least number of objects. */
export function indexSnapshots(raw: string, at: Reading): number | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'on' || value === 'true') return DEFAULT_INDEX_SNAPSHOT_MIN_OBJECTS;
  if (value === 'off' || value === 'false') return undefined;
  if (/^[1-9][0-9]*$/.test(value)) return Number(value);
  throw refuse(at, 'on, off or the least number of objects a model needs to get one', raw);
}

/** `<host>-<6 hex digits of the data directory's path>`: stable across restarts, different per data directory. */
export function replicaId(raw: string, at: Reading): string {
  const dataDir = String(at.earlier.dataDir);
  return raw || `${hostname()}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 6)}`;
}
