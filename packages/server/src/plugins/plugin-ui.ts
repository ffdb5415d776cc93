/**
 * Plugin UIs (docs/plugins.md "Plugin UIs"): a plugin's manifest names an ESM bundle (`spec.ui`) and, optionally, its
 * stylesheet (`spec.uiStyle`), both inside the bundle's folder. svc serves that folder publicly (it is code, with no
 * secrets) while the plugin is STARTED, at `/plugins/<name>/ui/<tag>/<file>`, where the tag is a digest of the entry
 * and stylesheet: a new build gets new URLs, so every file is cached as immutable.
 */

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { PluginManifest } from '@svc/plugin-api';
import { type StaticFile, StaticFiles } from '../api/static-files.js';
import type { PluginHost, PluginRecord } from './plugin-host.js';

/** What the console loads of a started plugin with a UI (`GET …/plugins/-/uis`). */
export interface PluginUi {
  name: string;
  displayName: string;
  version: string;
  /** Absolute URL path of the ESM entry. */
  entry: string;
  /** Absolute URL path of the stylesheet, when the manifest names one. */
  style?: string;
}

/** Problems with `spec.ui` / `spec.uiStyle`: relative paths inside the plugin, the style beside the entry. */
export function uiProblems(spec: Partial<PluginManifest['spec']>): string[] {
  const problems: string[] = [];
  const inside = (field: 'ui' | 'uiStyle', value: unknown, ext: RegExp, kind: string) => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') return void problems.push(`spec.${field} must be a file path`);
    const normal = path.posix.normalize(value.replaceAll('\\', '/'));
    if (
      path.posix.isAbsolute(normal) ||
      normal === '..' ||
      normal.startsWith('../') ||
      value.split(/[\\/]/).includes('..')
    ) {
      return void problems.push(`spec.${field} must be a path inside the plugin folder, without ".."`);
    }
    if (!ext.test(normal)) return void problems.push(`spec.${field} must name a ${kind} file`);
    return normal;
  };
  const entry = inside('ui', spec.ui, /\.m?js$/, '.js');
  const style = inside('uiStyle', spec.uiStyle, /\.css$/, '.css');
  if (spec.uiStyle !== undefined && spec.ui === undefined) problems.push('spec.uiStyle needs spec.ui');
  if (entry && uiFolder(entry) === '.') {
    problems.push('spec.ui must be in a folder of its own (such as ui/dist/main.js): that folder is served publicly');
  } else if (entry && style && !style.startsWith(`${uiFolder(entry)}/`)) {
    problems.push(`spec.uiStyle must be inside the folder of spec.ui (${uiFolder(entry)}/)`);
  }
  return problems;
}

/** The folder served for a UI entry: the entry's own folder, relative to the plugin. */
function uiFolder(entry: string): string {
  return path.posix.dirname(path.posix.normalize(entry));
}

interface Served {
  /** Digest of the entry and stylesheet, the URL's version segment. */
  tag: string;
  folder: string;
  /** The folder's files, each read and gzipped once. */
  files: StaticFiles;
}

/** The UIs of running plugins and their files; what is read from disk is kept per start of each plugin. */
export class PluginUis {
  private readonly served = new Map<string, { key: string; made: Promise<Served | undefined> }>();

  constructor(
    private readonly host: Pick<PluginHost, 'list' | 'get' | 'isRunning'>,
    /** The entry on an author's Vite dev server the console loads instead of the bundle (`svc plugin dev --ui`). */
    private readonly devEntry: (name: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** The UIs of STARTED plugins whose bundle exists, by plugin name. */
  async list(): Promise<PluginUi[]> {
    const uis: PluginUi[] = [];
    for (const record of this.host.list().filter((r) => this.host.isRunning(r.name) && r.manifest.spec.ui)) {
      const { spec } = record.manifest;
      const dev = await this.devEntry(record.name);
      if (dev) {
        uis.push({
          name: record.name,
          displayName: spec.displayName ?? record.name,
          version: spec.version,
          entry: dev,
        });
        continue;
      }
      const served = await this.servedOf(record);
      if (!served) continue;
      const base = `/plugins/${record.name}/ui/${served.tag}/`;
      const relative = (file: string) => path.posix.relative(served.folder, path.posix.normalize(file));
      uis.push({
        name: record.name,
        displayName: spec.displayName ?? record.name,
        version: spec.version,
        entry: base + relative(spec.ui as string),
        ...(spec.uiStyle ? { style: base + relative(spec.uiStyle) } : {}),
      });
    }
    return uis.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * A UI file, or undefined when the plugin is not STARTED, has no UI, the tag is not the current one, or the file is
   * not in the bundle's folder (only listed files are served: no `..`, no links out).
   */
  async file(name: string, tag: string, file: string): Promise<StaticFile | undefined> {
    const record = this.host.get(name);
    if (!record || !this.host.isRunning(name) || !record.manifest.spec.ui) return undefined;
    const served = await this.servedOf(record);
    if (!served || served.tag !== tag) return undefined;
    return served.files.get(file);
  }

  private servedOf(record: PluginRecord): Promise<Served | undefined> {
    const key = `${record.folder}\0${record.startedAt ?? ''}\0${record.manifest.spec.version}`;
    const known = this.served.get(record.name);
    if (known?.key === key) return known.made;
    const made = readServed(record).catch(() => undefined);
    this.served.set(record.name, { key, made });
    return made;
  }
}

async function readServed(record: PluginRecord): Promise<Served | undefined> {
  const { ui, uiStyle } = record.manifest.spec;
  if (!ui) return undefined;
  const folder = uiFolder(ui);
  const files = new StaticFiles(path.join(record.folder, folder));
  const hash = createHash('sha256');
  for (const file of [ui, uiStyle]) {
    if (!file) continue;
    const found = await files.get(path.posix.relative(folder, path.posix.normalize(file)));
    if (!found) return undefined;
    hash.update(found.bytes);
  }
  return { tag: hash.digest('base64url').slice(0, 12), folder, files };
}
