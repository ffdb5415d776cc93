import { describe, expect, it } from 'vitest';
import { addMessages, locale, setLocale, t } from '../src/i18n.js';

describe('languages', () => {
  it("merges a plugin's Chinese messages added while the switch to Chinese is under way", async () => {
    let release = () => {};
    const consoleChinese = new Promise<{ default: { title: string } }>((resolve) => {
      release = () => resolve({ default: { title: '控制台' } });
    });
    await addMessages({ en: { title: 'Console', plugin: { title: 'Persons' } }, 'zh-CN': () => consoleChinese });
    // The first screen's language is being fetched when a plugin UI, loaded meanwhile, adds its words.
    const switching = setLocale('zh-CN', false);
    const adding = addMessages({
      en: { plugin: { title: 'Persons' } },
      'zh-CN': () => Promise.resolve({ plugin: { title: '人员列表' } }),
    });
    release();
    await Promise.all([switching, adding]);
    expect([locale.value, t('title'), t('plugin.title')]).toEqual(['zh-CN', '控制台', '人员列表']);
  });
});
