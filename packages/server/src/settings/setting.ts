/**
 * One setting of `svc serve`, written once: its config file key, flag, variable, default, help and parser. The flags
 * accepted, the variables read, the config file's keys, `svc serve --help` and the table in docs/api.md all come from
 * these entries (settings/table.ts), as Kubernetes' component-base makes flags and docs from one options struct.
 */

/** A setting's value that cannot be used: a mistake in how svc was started, so `svc serve` exits 2 naming it. */
export class SettingError extends Error {}

/** Where a value is read from, for its parser: what a message calls it, and where a relative path starts. */
export interface Reading {
  /** `SVC_PORT`, or `svc.yaml: port` for a value of the config file. */
  name: string;
  /** A path made absolute: from the working directory, or from the config file's folder for the file's values. */
  resolve(relative: string): string;
  /** The values of the settings above this one in the table (the default replica id reads the data directory). */
  earlier: Readonly<Record<string, unknown>>;
}

export interface Setting<Field extends string = string, T = unknown> {
  /** camelCase: the config file's key; the flag is its kebab-case form (`dataDir`, `--data-dir`). */
  key: string;
  /** The `Config` field it fills: the key, unless a unit or a plural says more (`sessionIdleTimeoutMs`). */
  field: Field;
  /** The environment variable. */
  env: string;
  /** `--data-dir`, or undefined for a setting that has no flag. */
  flag: string | undefined;
  /** What the flag takes, in `svc serve --help` (`N`, `DIR`, `on|off`). */
  arg: string;
  /** Whether the config file may set it. */
  inFile: boolean;
  /** The value used when none is given (an empty one counts as none), read by the same parser. */
  default: string | undefined;
  /** The docs table's default column when it is not `default` (what no value means). */
  unset: string | undefined;
  /** A list setting's separator in a variable or flag; the config file may give a YAML list instead. */
  list: ',' | ':' | undefined;
  /** One short line for `svc serve --help`. */
  help: string;
  /** The docs table's meaning column (Markdown). */
  docs: string;
  parse(raw: string, at: Reading): T;
}

interface Spec<Key extends string, Field extends string, T> {
  key: Key;
  field?: Field;
  env: string;
  /** False: no flag (a password on the command line shows in `ps`). */
  flag?: false;
  arg?: string;
  /** False: not in the config file. */
  inFile?: false;
  default?: string;
  unset?: string;
  list?: ',' | ':';
  help: string;
  docs: string;
  /** `raw` is the value given, or the default, or `''` when there is neither. */
  parse(raw: string, at: Reading): T;
}

/** An entry of the table, keeping the literal type of its field and of its value (so `Config` is derived from it). */
export function setting<const Key extends string, T, const Field extends string = Key>(
  spec: Spec<Key, Field, T>,
): Setting<Field, T> {
  return {
    key: spec.key,
    field: (spec.field ?? spec.key) as Field,
    env: spec.env,
    flag: spec.flag === false ? undefined : `--${kebab(spec.key)}`,
    arg: spec.arg ?? 'VALUE',
    inFile: spec.inFile !== false,
    default: spec.default,
    unset: spec.unset,
    list: spec.list,
    help: spec.help,
    docs: spec.docs,
    parse: spec.parse,
  };
}

/** `dataDir` → `data-dir`. */
export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** `dataDir` → `SVC_DATA_DIR`: how every variable is named (a test holds the table to it). */
export function variableOf(key: string): string {
  return `SVC_${kebab(key).replaceAll('-', '_').toUpperCase()}`;
}
