import path from 'node:path';
import type { Plugin } from '@svc/plugin-api';
import { codeIdentity, importPluginEntry } from './module-loader.js';

/**
 * Loads a plugin's entry module (fresh when its code changed since the last load) and returns its default export,
 * which must be a plugin made with definePlugin, with the digest of the code it was loaded from.
 */
export async function loadPluginEntry(folder: string, main: string): Promise<{ plugin: Plugin; code: string }> {
  const entry = path.resolve(folder, main);
  const { generation, digest: code } = await codeIdentity(folder);
  const module = (await importPluginEntry(entry, generation, folder)) as { default?: Plugin };
  const plugin = module.default;
  if (!plugin || typeof plugin.start !== 'function') {
    throw new Error(`${main} has no default export with a start function (use definePlugin)`);
  }
  return { plugin, code };
}

/** A plugin's `start` or `stop`, bounded: one that hangs must not hold up the lifecycle of every other plugin. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, plugin: string, step = 'start'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step} of plugin "${plugin}" did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
