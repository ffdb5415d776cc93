import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './harness.js';

/**
 * The map of the house, checked against the real imports (in the spirit of Kubernetes' `.import-restrictions`). Each
 * unit of packages/server/src (a folder, or a file at its top) may import only the units listed for it; ARCHITECTURE.md
 * draws the same map. Tests may import anything. A new folder must be given its place here before it can exist.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Leaves: pure rules and helpers.
  util: [],
  // The module contract and the kernel composing modules (ordering, phases, stop stages); it knows no feature.
  kernel: ['config.ts'],
  'version.ts': [],
  objects: ['util'],
  authz: ['objects', 'util'],
  store: ['util'],
  // The HTTPS listener's certificates: files under the data dir, nothing of the server's.
  tls: ['util'],
  index: ['objects', 'util'],
  // Services over the store.
  registry: ['authz', 'index', 'objects', 'store', 'util', 'version.ts'],
  watch: ['authz', 'index', 'objects', 'registry', 'store', 'util'],
  controllers: ['index', 'objects', 'registry', 'util', 'watch'],
  // The HTTP kernel: parsing, routing, problem+json, generated routes. No feature folder below it.
  // It listens on HTTPS too, with the certificates tls/ keeps.
  api: ['authz', 'index', 'objects', 'registry', 'tls', 'util', 'version.ts', 'watch'],
  // The OpenAPI documents and the API reference page: read the models and the router, mounted like a feature.
  openapi: ['api', 'objects', 'registry', 'util', 'version.ts'],
  // /metrics: reads the counts services keep, at scrape time; the kernel serves its text. It counts requests by the
  // gate's classification (authz) as the kernel (api) answers them, in histograms util keeps.
  metrics: ['api', 'authz', 'controllers', 'registry', 'util', 'version.ts', 'watch'],
  // The web console's built files, served like the API reference.
  console: ['api', 'util'],
  // The audit log: a hook on the HTTP kernel, its policy and sinks, the store's audit table, and its route.
  audit: ['api', 'authz', 'store', 'util'],
  // Features: each owns its services and its routes (mounted on the kernel's router).
  authn: ['api', 'authz', 'objects', 'registry', 'store', 'util'],
  rbac: ['api', 'authn', 'authz', 'objects', 'registry', 'util', 'watch'],
  content: ['api', 'objects', 'registry', 'util'],
  plugins: ['api', 'authz', 'controllers', 'objects', 'registry', 'util', 'version.ts', 'watch'],
  // The offline commands (`svc export`, `svc import`, `svc admin reset-password`) open the store directly, with no
  // server running, so `cli` reaches `store` (store/open-store.ts chooses the dialect), and `authn` for what a password
  // reset means (authn/lost-password.ts), rather than copying the rules of passwords and sessions.
  // Its online commands (cli/online/) reach a running server only through the @svc/client package.
  // A backup carries the TLS CA svc made under the data dir, so `cli` reaches `tls` (a leaf) for where it is kept.
  cli: ['authn', 'objects', 'plugins', 'store', 'tls', 'util', 'version.ts'],
  // The settings table and what is made from it (the config file's reading, `svc serve --help`, the docs table).
  settings: ['util'],
  // The composition root and the entry points: the only units that see everything.
  'config.ts': ['settings', 'util'],
  'logger.ts': [],
  'main.ts': ['*'],
  'cli.ts': ['*'],
  'plugin-cli.ts': ['*'],
  'index.ts': ['*'],
};

/**
 * A unit's `module.ts` is its contract with the others (kernel/module.ts): what it provides and needs, by refs. Besides
 * what its unit may import, it may import the kernel and other units' `module.ts` (for their refs and the types of
 * what they provide), and only those, in a graph without cycles.
 */
const MODULE_FILE = 'module.ts';

const SERVER_SRC = path.join(REPO, 'packages/server/src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    const isTest = /\.(test|suite)\.ts$/.test(entry.name);
    return entry.name.endsWith('.ts') && !isTest ? [full] : [];
  });
}

/** The unit a file of packages/server/src belongs to: its top folder, or the file itself at the top. */
function unitOf(file: string): string {
  const [first = ''] = path.relative(SERVER_SRC, file).split(path.sep);
  return first;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

/** Every import from one unit into another, as `from -> to (file: specifier)`. */
function crossings(): Array<{ from: string; to: string; where: string }> {
  const found: Array<{ from: string; to: string; where: string }> = [];
  for (const file of sourceFiles(SERVER_SRC)) {
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      const [from, to] = [unitOf(file), unitOf(target)];
      if (from === to || isModuleCrossing(file, target)) continue;
      found.push({ from, to, where: `${path.relative(SERVER_SRC, file)}: '${specifier}'` });
    }
  }
  return found;
}

/** A module file importing the kernel, or another unit's module file: the composition layer's own arrows. */
function isModuleCrossing(file: string, target: string): boolean {
  if (path.basename(file) !== MODULE_FILE) return false;
  return unitOf(target) === 'kernel' || path.basename(target) === MODULE_FILE;
}

/** The module files and which module files each imports. */
function moduleGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SERVER_SRC).filter((f) => path.basename(f) === MODULE_FILE)) {
    const targets = importsOf(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'))
      .filter((target) => path.basename(target) === MODULE_FILE && target !== file);
    graph.set(
      path.relative(SERVER_SRC, file),
      targets.map((t) => path.relative(SERVER_SRC, t)),
    );
  }
  return graph;
}

/** Which crossings the table forbids. Pure, so the test below can show it catches a broken arrow. */
function forbidden(
  found: Array<{ from: string; to: string; where: string }>,
  table: Record<string, readonly string[]>,
) {
  return found
    .filter(({ from, to }) => {
      const allowed = table[from];
      return allowed === undefined || !(allowed.includes('*') || allowed.includes(to));
    })
    .map(({ from, to, where }) => `${from} -> ${to} (${where})`);
}

describe('the architecture', () => {
  it('has a place in the table for every unit of packages/server/src', () => {
    const units = new Set(sourceFiles(SERVER_SRC).map(unitOf));
    expect([...units].filter((unit) => !(unit in MAY_IMPORT))).toEqual([]);
  });

  it('imports only along the arrows of the table', () => {
    expect(forbidden(crossings(), MAY_IMPORT)).toEqual([]);
  });

  it('catches a broken arrow: the HTTP kernel importing a feature, authz importing a service', () => {
    const broken = [
      { from: 'api', to: 'authn', where: 'api/x.ts' },
      { from: 'authz', to: 'registry', where: 'authz/y.ts' },
      { from: 'store', to: 'objects', where: 'store/z.ts' },
      { from: 'rbac', to: 'authn', where: 'rbac/ok.ts' },
    ];
    expect(forbidden(broken, MAY_IMPORT)).toEqual([
      'api -> authn (api/x.ts)',
      'authz -> registry (authz/y.ts)',
      'store -> objects (store/z.ts)',
    ]);
  });

  it('draws a map without cycles between units', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const cycles: string[] = [];
    const visit = (unit: string, trail: string[]) => {
      if (done.has(unit)) return;
      if (visiting.has(unit)) return void cycles.push([...trail, unit].join(' -> '));
      visiting.add(unit);
      for (const next of MAY_IMPORT[unit] ?? []) if (next !== '*') visit(next, [...trail, unit]);
      visiting.delete(unit);
      done.add(unit);
    };
    for (const unit of Object.keys(MAY_IMPORT)) visit(unit, []);
    expect(cycles).toEqual([]);
  });

  it('composes the modules in a graph without cycles, each module file in its unit', () => {
    const graph = moduleGraph();
    expect(graph.size).toBeGreaterThanOrEqual(12);
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') return void cycles.push([...trail, file].join(' -> '));
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps the composition root short and every source file readable in one sitting', () => {
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;
    // main.ts lists the modules and hands them to the kernel; a feature's wiring belongs in its own module file.
    expect(lines(path.join(SERVER_SRC, 'main.ts'))).toBeLessThan(150);
    const long = sourceFiles(SERVER_SRC)
      .filter((file) => lines(file) > 450)
      .map((file) => `${path.relative(SERVER_SRC, file)}: ${lines(file)} lines`);
    expect(long).toEqual([]);
  });

  it('keeps the plugin API a root, and the example plugin and the client on the plugin API only', () => {
    const outside = (dir: string, allowed: RegExp) =>
      sourceFiles(path.join(REPO, dir))
        .flatMap((file) => importsOf(file).map((specifier) => ({ file, specifier })))
        .filter(
          ({ specifier }) => !specifier.startsWith('.') && !specifier.startsWith('node:') && !allowed.test(specifier),
        )
        .map(({ file, specifier }) => `${path.relative(REPO, file)}: '${specifier}'`);
    // The plugin API depends on nothing in the repository, and on one package for types only: json-schema-to-ts,
    // which gives defineRoute's handlers their body's type. Nothing of it is in the built code the host loads.
    expect(outside('packages/plugin-api/src', /^json-schema-to-ts$/)).toEqual([]);
    const built = sourceFiles(path.join(REPO, 'packages/plugin-api/src')).map((file) =>
      path.join(REPO, 'packages/plugin-api/dist', `${path.basename(file, '.ts')}.js`),
    );
    expect(built.filter((file) => /['"]json-schema-to-ts['"]/.test(readFileSync(file, 'utf8')))).toEqual([]);
    // A plugin reaches the host only through the plugin API (json-schema-to-ts: types only, derived from its schema).
    expect(outside('plugins/people/src', /^(@svc\/plugin-api|json-schema-to-ts)$/)).toEqual([]);
    // The client knows the server only over HTTP: its types come from the plugin API, TLS trust from undici.
    expect(outside('packages/client/src', /^(@svc\/plugin-api|undici)$/)).toEqual([]);
  });
});
