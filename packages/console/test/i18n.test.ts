import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import en from '../src/i18n/en.js';
import zhCN from '../src/i18n/zh-CN.js';

type Tree = { [key: string]: string | Tree };

/** Every leaf of a message tree as `dotted.key → text`. */
function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(full, value);
    else for (const [k, v] of leaves(value, full)) out.set(k, v);
  }
  return out;
}

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sources(full);
    return /\.(ts|vue)$/.test(entry.name) ? [full] : [];
  });
}

/** The `{placeholders}` of a message, sorted. */
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

describe('the console messages', () => {
  const english = leaves(en);
  const chinese = leaves(zhCN as Tree);

  it('has every English key in Chinese, and no other, each with the same placeholders', () => {
    expect([...chinese.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [key, text] of english) expect(placeholders(chinese.get(key) ?? ''), key).toEqual(placeholders(text));
  });

  it('has a Chinese text for every key, not the English one left in place', () => {
    // Kept English on purpose: names of things that are not words (the product, the languages' own names).
    const same = [...english].filter(([key, text]) => chinese.get(key) === text && /[a-z]{3}/i.test(text));
    expect(same.map(([key]) => key)).toEqual([]);
  });

  it('defines every key the sources name (t, $t, and keys in route meta)', () => {
    const used = new Set<string>();
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\$?\bt\(\s*'([a-zA-Z][\w.]*)'/g)) used.add(m[1] as string);
      for (const m of text.matchAll(/\b(?:title|name|group): '((?:nav)\.[\w.]+)'/g)) used.add(m[1] as string);
    }
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((key) => !english.has(key))).toEqual([]);
  });
});
