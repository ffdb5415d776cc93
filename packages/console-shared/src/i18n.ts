import { computed } from 'vue';
import { createI18n, useI18n } from 'vue-i18n';

export { useI18n };

/** The console's languages, by BCP 47 tag; English is the source every other language translates. */
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/** The language names shown in the switch, each in its own language (as people look for their own). */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

/** A message tree: strings (vue-i18n's syntax, `{name}` placeholders) under nested keys. */
export interface Messages {
  [key: string]: string | Messages;
}

/** A language's messages, given at once or fetched when that language is first chosen (a chunk of its own). */
export type MessagesSource = Messages | (() => Promise<Messages | { default: Messages }>);

/** Where the browser remembers the chosen language (the sign-in page needs it before anyone is signed in). */
export const LOCALE_STORAGE_KEY = 'svc.console.language';

/**
 * The one vue-i18n instance of the console and every plugin UI (Composition API, `$t` in every template). English is
 * bundled and the fallback; other languages are merged in when first chosen.
 */
export const i18n = createI18n({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: { en: {}, 'zh-CN': {} } as Record<Locale, Messages>,
  // A key missing in a language falls back to English silently; missing everywhere, the key itself shows.
  missingWarn: false,
  fallbackWarn: false,
});

/** `t` for code outside components (composables, modules): reactive where read inside a computed or a template. */
export const t = i18n.global.t;

/** The language shown now (reactive). */
export const locale = computed<Locale>(() => i18n.global.locale.value as Locale);

const pending = new Map<Locale, MessagesSource[]>();
/**
 * The language shown, or the one a `setLocale` under way switches to: messages added meanwhile (a plugin UI loading
 * while the first screen's language is fetched) are merged at once, not left pending for a language already chosen.
 */
let chosen: Locale = 'en';

/**
 * Adds messages for each language (the console's own, or a plugin UI's from `definePlugin({ messages })`). Messages
 * of the language shown are merged at once (fetched first when lazy); others when that language is chosen.
 */
export async function addMessages(byLocale: Partial<Record<string, MessagesSource>>): Promise<void> {
  const now: Promise<void>[] = [];
  for (const [tag, source] of Object.entries(byLocale)) {
    const known = LOCALES.find((l) => l === tag);
    if (!known || !source) continue;
    if (typeof source !== 'function' || known === chosen) now.push(merge(known, source));
    else pending.set(known, [...(pending.get(known) ?? []), source]);
  }
  await Promise.all(now);
}

async function merge(tag: Locale, source: MessagesSource): Promise<void> {
  const loaded = typeof source === 'function' ? await source() : source;
  const messages = 'default' in loaded && typeof loaded.default === 'object' ? loaded.default : loaded;
  i18n.global.mergeLocaleMessage(tag, messages as Messages);
}

/** The language a first visit gets: the first of the browser's languages the console has (`zh`, `zh-Hans-*` → zh-CN). */
export function preferredLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const lower = language.toLowerCase();
    if (lower === 'zh' || lower.startsWith('zh-cn') || lower.startsWith('zh-hans') || lower === 'zh-sg') return 'zh-CN';
    if (lower === 'en' || lower.startsWith('en-')) return 'en';
  }
  return 'en';
}

/** The remembered choice, else the browser's languages. */
export function initialLocale(): Locale {
  const stored = globalThis.localStorage?.getItem(LOCALE_STORAGE_KEY);
  const known = LOCALES.find((l) => l === stored);
  return known ?? preferredLocale(globalThis.navigator?.languages ?? []);
}

/**
 * Shows the console in `tag` without a reload: fetches its messages (console's and plugins') if not yet, switches
 * every `t`, sets `<html lang>` and, when `remember`, keeps the choice for the next visit.
 */
export async function setLocale(tag: Locale, remember = true): Promise<void> {
  chosen = tag;
  const sources = pending.get(tag) ?? [];
  pending.delete(tag);
  await Promise.all(sources.map((source) => merge(tag, source)));
  i18n.global.locale.value = tag;
  if (globalThis.document) document.documentElement.lang = tag;
  if (remember) globalThis.localStorage?.setItem(LOCALE_STORAGE_KEY, tag);
}

/** A menu entry's or a title's text: a message key when one exists (Halo's convention), else the text as given. */
export function translated(textOrKey: string): string {
  return i18n.global.te(textOrKey) || i18n.global.te(textOrKey, 'en') ? t(textOrKey) : textOrKey;
}
