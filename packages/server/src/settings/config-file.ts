/**
 * The config file of `svc serve --config svc.yaml` (or SVC_CONFIG): a YAML mapping of the settings' keys (the flags
 * in camelCase) to their values. The operator owns the file, so it is read with the `yaml` package directly rather
 * than through objects/untrusted-yaml.ts; still, anything but a mapping of known keys to a value or (for a list
 * setting) a list of values is refused, naming the key, before any value is used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { didYouMean } from '../util/suggest.js';
import { kebab, type Setting, SettingError } from './setting.js';

export interface ConfigFile {
  /** The path as given, for messages. */
  name: string;
  /** The folder relative paths in the file start from. */
  dir: string;
  /** Each key's value as a variable would hold it: a list's items joined by the setting's separator. */
  values: Record<string, string>;
}

export function readConfigFile(file: string, settings: readonly Setting[]): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SettingError(`cannot read the config file: ${(error as Error).message}`);
  }
  return parseConfigFile(text, file, settings);
}

/** Pure: the file's text to its values, or a SettingError naming the file and the key. */
export function parseConfigFile(text: string, file: string, settings: readonly Setting[]): ConfigFile {
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) throw new SettingError(`${file}: ${document.errors[0]!.message}`);
  if (document.contents !== null && !isMap(document.contents)) {
    throw new SettingError(`${file} must be a mapping of settings (key: value), such as "port: 8090"`);
  }
  const mapping = (document.toJS() ?? {}) as Record<string, unknown>;
  const byKey = new Map(settings.filter((s) => s.inFile).map((s) => [s.key, s]));
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(mapping)) {
    const entry = byKey.get(key);
    if (!entry) throw new SettingError(`${file}: unknown key "${key}"${suggestion(key, settings, [...byKey.keys()])}`);
    values[key] = asText(value, entry, `${file}: ${key}`);
  }
  return { name: file, dir: path.dirname(path.resolve(file)), values };
}

/** A key spelled as its flag or variable (`data-dir`, `SVC_DATA_DIR`) is pointed to its key; else the closest key. */
function suggestion(typed: string, settings: readonly Setting[], keys: string[]): string {
  const named = settings.find((s) => s.inFile && [s.env, kebab(s.key), s.flag].includes(typed));
  return named ? `; did you mean "${named.key}"?` : didYouMean(typed, keys);
}

function asText(value: unknown, entry: Setting, name: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  if (Array.isArray(value) && entry.list) {
    const separator = entry.list;
    return value
      .map((item) => {
        if (typeof item !== 'string' && typeof item !== 'number') {
          throw new SettingError(`${name} must be a list of plain values, got ${shapeOf(item)} in it`);
        }
        const itemText = String(item);
        if (itemText.includes(separator)) {
          throw new SettingError(`${name} must be a list of values without "${separator}", got "${itemText}"`);
        }
        return itemText;
      })
      .join(separator);
  }
  const takes = entry.list ? 'a value or a list of values' : 'a single value';
  throw new SettingError(`${name} must be ${takes}, got ${shapeOf(value)}`);
}

function shapeOf(value: unknown): string {
  if (value === null || value === undefined) return 'no value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `"${String(value)}"`;
}
