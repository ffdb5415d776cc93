/**
 * The settings of `svc serve`, read from flags, environment variables and the config file, in that order of
 * precedence, into the typed `Config`. What each setting is lives in one table (settings/table.ts).
 */
import path from 'node:path';
import { readConfigFile } from './settings/config-file.js';
import { type Reading, SettingError } from './settings/setting.js';
import { type Config, SETTINGS } from './settings/table.js';
import { didYouMean } from './util/suggest.js';

export { SettingError } from './settings/setting.js';
export type { Config } from './settings/table.js';

/** The environment, with flags written over it: variable name to value. */
export type Settings = Record<string, string | undefined>;

const VARIABLE_OF_FLAG = new Map(SETTINGS.flatMap((s) => (s.flag ? [[s.flag, s.env] as const] : [])));

/** Flags of `svc serve` that take no value. `--default-plugins` is `npm start`'s: the repository's plugins/ folder. */
const SWITCHES = ['--default-plugins', '--help', '-h', '--version'];

/**
 * Command-line flags override environment variables of the same name (`--data-dir x` or `--data-dir=x`). An unknown
 * flag or a stray argument is an error naming the closest flag, not something silently ignored.
 */
export function settingsFromArgs(args: string[], env: Settings): Settings {
  const settings: Settings = { ...env };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (SWITCHES.includes(flag)) continue;
    const name = VARIABLE_OF_FLAG.get(flag);
    if (!name) throw new SettingError(unknownFlag(flag));
    const value = inline ?? args[++i];
    if (value === undefined) throw new SettingError(`${flag} needs a value`);
    settings[name] = value;
  }
  return settings;
}

function unknownFlag(flag: string): string {
  if (!flag.startsWith('-')) return `unexpected argument "${flag}" (svc serve takes only flags)`;
  return `unknown flag "${flag}"${didYouMean(flag, [...VARIABLE_OF_FLAG.keys(), ...SWITCHES.filter((s) => s !== '-h')])}`;
}

export interface LoadOptions {
  /** Values by key beneath the config file's and above the table's defaults (`npm start`'s plugins folder). */
  fallback?: Readonly<Record<string, string | undefined>>;
}

/**
 * The typed settings. A flag or variable (in `settings`) beats the config file (SVC_CONFIG), which beats `fallback`
 * and then the table's default; an empty value counts as none. A bad value throws a SettingError naming where it was
 * given: the variable, or the file and its key.
 */
export function loadConfig(settings: Settings, options: LoadOptions = {}): Config {
  const fileName = settings.SVC_CONFIG?.trim() ? settings.SVC_CONFIG : undefined;
  const file = fileName === undefined ? undefined : readConfigFile(fileName, SETTINGS);
  const values: Record<string, unknown> = {};
  for (const entry of SETTINGS) {
    const fromFile = file?.values[entry.key];
    const inFile = settings[entry.env] === undefined && fromFile !== undefined;
    const given = settings[entry.env] ?? fromFile ?? options.fallback?.[entry.key];
    const raw = given === undefined || given.trim() === '' ? (entry.default ?? '') : given;
    const at: Reading = inFile
      ? { name: `${file!.name}: ${entry.key}`, resolve: (p) => path.resolve(file!.dir, p), earlier: values }
      : { name: entry.env, resolve: (p) => path.resolve(p), earlier: values };
    values[entry.field] = entry.parse(raw, at);
  }
  return values as Config;
}
