import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A package declares every package its sources import (in `dependencies`, `devDependencies` or, for what its host
 * provides, `peerDependencies`), so it installs and builds on its own rather than by what the workspace happens to
 * hoist.
 */
const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const IMPORT =
  /\bimport\s+(?:[^'"();]*?\sfrom\s+)?['"]([^'"]+)['"]|\bexport\s[^'";]*?\sfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * The package an import names: `@scope/name` or `name`, without a subpath; undefined for a file, a Node builtin or a
 * module a Vite plugin of the package makes (`virtual:…`).
 */
function packageOf(specifier: string): string | undefined {
  if (/^(\.|\/|node:|virtual:)/.test(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importsIn(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return /\.(ts|vue)$/.test(entry.name) ? [full] : [];
  });
}

/** The packages `name`'s sources (src/ and its top-level config files) import but its package.json does not declare. */
function undeclared(name: string): string[] {
  const root = path.join(PACKAGES, name);
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const configs = readdirSync(root)
    .filter((file) => /\.ts$/.test(file))
    .map((file) => path.join(root, file));
  const missing = new Set<string>();
  for (const file of [...sourcesOf(path.join(root, 'src')), ...configs]) {
    for (const specifier of importsIn(readFileSync(file, 'utf8'))) {
      const pkg = packageOf(specifier);
      if (pkg && !declared.has(pkg)) missing.add(`${pkg} (${path.relative(root, file)})`);
    }
  }
  return [...missing].sort();
}

describe('declared dependencies', () => {
  it.each([
    { specifier: 'vue', want: 'vue' },
    { specifier: 'primevue/button', want: 'primevue' },
    { specifier: '@svc/client', want: '@svc/client' },
    { specifier: '@primeuix/themes/aura', want: '@primeuix/themes' },
    { specifier: './roles', want: undefined },
    { specifier: 'node:path', want: undefined },
    { specifier: 'virtual:primevue-theme.css', want: undefined },
  ])('reads $specifier as the package $want', ({ specifier, want }) => {
    expect(packageOf(specifier)).toBe(want);
  });

  it('reads imports, re-exports, dynamic imports and side-effect imports', () => {
    const text = [
      "import { ref } from 'vue';",
      "import type { Plugin } from '@svc/plugin-api';",
      "import 'primeicons/primeicons.css';",
      "export { CONSOLE_API } from '@svc/plugin-api';",
      "component: () => import('./pages/PostsPage.vue'),",
    ].join('\n');
    expect(importsIn(text)).toEqual([
      'vue',
      '@svc/plugin-api',
      'primeicons/primeicons.css',
      '@svc/plugin-api',
      './pages/PostsPage.vue',
    ]);
  });

  it.each(['console', 'console-shared'])('holds for packages/%s', (name) => {
    expect(undeclared(name)).toEqual([]);
  });
});
