import type { Logger, PluginLogEntry } from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';
import { pluginLogger } from './plugin-context.js';

/** Lines kept per plugin, and characters per line: a chatty or hostile plugin cannot grow the host's memory. */
const MAX_ENTRIES = 200;
const MAX_MESSAGE = 2000;

/**
 * What each plugin logged during its latest start attempt (and the host's verdict), for the console's "why did it
 * fail" view. Lines also go to the host's log as usual.
 */
export class PluginLogs {
  private readonly byPlugin = new Map<string, PluginLogEntry[]>();

  constructor(private readonly base: PinoLogger) {}

  /** Starts a fresh record for a start attempt. */
  begin(plugin: string): void {
    this.byPlugin.set(plugin, []);
  }

  /**
   * Puts `earlier` entries (an attempt that failed: an upgrade rolled back) before the current attempt's, so its log
   * tells both; the oldest go first when there are too many.
   */
  prepend(plugin: string, earlier: PluginLogEntry[]): void {
    const list = [...earlier, ...(this.byPlugin.get(plugin) ?? [])];
    this.byPlugin.set(plugin, list.slice(Math.max(0, list.length - MAX_ENTRIES)));
  }

  entries(plugin: string): PluginLogEntry[] {
    return [...(this.byPlugin.get(plugin) ?? [])];
  }

  forget(plugin: string): void {
    this.byPlugin.delete(plugin);
  }

  /** The logger handed to the plugin: pino lines tagged with the plugin's name, and a copy kept here. */
  logger(plugin: string): Logger {
    const log = pluginLogger(this.base, plugin);
    const keep = (level: PluginLogEntry['level'], message: string, fields?: Record<string, unknown>) => {
      const list = this.byPlugin.get(plugin);
      if (!list) return;
      if (list.length >= MAX_ENTRIES) list.shift();
      list.push({
        time: new Date().toISOString(),
        level,
        message: String(message).slice(0, MAX_MESSAGE),
        ...(fields ? { fields } : {}),
      });
    };
    const at = (level: PluginLogEntry['level']) => (message: string, fields?: Record<string, unknown>) => {
      log[level](message, fields);
      keep(level, message, fields);
    };
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }
}
