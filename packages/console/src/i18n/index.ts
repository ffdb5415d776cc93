import { addMessages, initialLocale, setLocale } from '@svc/console-shared';
import en from './en.js';

/** Every language's messages have English's keys, each a string: `zh-CN.ts` is checked against `en.ts` by type. */
export type Translation<T> = { [K in keyof T]: T[K] extends string ? string : Translation<T[K]> };

/**
 * The console's messages: English bundled (the source of every key), Simplified Chinese a chunk of its own fetched
 * only when chosen. Then the language of the first screen: remembered, else the browser's. Awaited before mounting, so
 * a Chinese visitor never sees English first.
 */
export async function startI18n(): Promise<void> {
  await addMessages({ en, 'zh-CN': () => import('./zh-CN.js') });
  await setLocale(initialLocale(), false);
}
