/**
 * What the composition root gives every module: the settings, the logger, and the options of an in-process server
 * (tests' knobs). Each module names the options it reads with its own type under the one id, so `main.ts`'s
 * `ServerOptions` is the intersection of the modules' option types.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type Ref, ref } from './module.js';

export const settingsRef: Ref<Config> = ref<Config>('settings');
export const loggerRef: Ref<Logger> = ref<Logger>('logger');

/** The options a module reads (a slice of ServerOptions, all optional). */
export function optionsRef<T extends object>(): Ref<T> {
  return ref<T>('options');
}
