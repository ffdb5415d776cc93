// `npm run package`: the installable artifacts in release/ (README "Install"):
//   svc-run-<version>.tgz         the server and the `svc` command: built JavaScript, the built console, Swagger UI
//                                 (a dependency), the example plugin in examples/ (started only with --default-plugins)
//   svc-client-<version>.tgz      the TypeScript client
//   svc-plugin-api-<version>.tgz  what plugin authors import
//   svc-plugin-testing-<version>.tgz  the plugin test harness (`startSvc`), which runs the svc-run installed beside it
// Each is packed from a staging folder holding only what runs: no TypeScript, Vite or Vitest, no Node.js, nothing
// built at install time. `@svc/plugin-api` (and in svc-run `@svc/client`) travel inside the tarballs as bundled
// dependencies, since they are not on the npm registry; the other dependencies come from it at install, but for
// Swagger UI's assets (withSwaggerUi), whose npm package would bring an install script.
// Usage: node scripts/package.js [--no-build]
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const release = path.join(root, 'release');
// Outside the repository: npm would otherwise take a staged package for a part of the workspace.
const stage = mkdtempSync(path.join(tmpdir(), 'svc-release-'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const manifest = (dir) => JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
const copy = (from, to) =>
  cpSync(path.join(root, from), to, { recursive: true, filter: (f) => !f.endsWith('.tsbuildinfo') });

if (!process.argv.includes('--no-build')) npm(['run', 'build'], root);
// Read after the build, which writes it.
const { SWAGGER_UI_FILES } = await import('../packages/server/dist/openapi/docs-page.js');
rmSync(release, { recursive: true, force: true });
mkdirSync(release, { recursive: true });

/** A package folder in the staging area holding `files` of `dir`, with `@svc/*` packages bundled inside. */
function staged(dir, files, bundled, edit = (m) => m) {
  const into = path.join(stage, path.basename(dir));
  mkdirSync(into, { recursive: true });
  for (const file of files) copy(path.join(dir, file), path.join(into, file));
  cpSync(path.join(root, 'LICENSE'), path.join(into, 'LICENSE'));
  const own = manifest(dir);
  for (const [name, from] of bundled) {
    const target = path.join(into, 'node_modules', name);
    mkdirSync(target, { recursive: true });
    copy(path.join(from, 'dist'), path.join(target, 'dist'));
    // The plugin API's one dependency (json-schema-to-ts) is types only: a bundled copy runs without it, and the
    // author's own svc-plugin-api brings it for type checks, so the copy does not list it (npm would leave it empty).
    const { devDependencies: _dev, scripts: _scripts, ...bundledManifest } = manifest(from);
    if (name === '@svc/plugin-api') delete bundledManifest.dependencies;
    writeFileSync(path.join(target, 'package.json'), `${JSON.stringify(bundledManifest, null, 2)}\n`);
  }
  // A bundled dependency stays in `dependencies` (npm packs only bundled packages it lists there).
  const dependencies = { ...own.dependencies };
  const { devDependencies: _dev, scripts: _scripts, ...rest } = own;
  const written = edit({
    ...rest,
    files: [...files, 'LICENSE'],
    dependencies,
    ...(bundled.length > 0 ? { bundleDependencies: bundled.map(([name]) => name) } : {}),
  });
  writeFileSync(path.join(into, 'package.json'), `${JSON.stringify(written, null, 2)}\n`);
  return into;
}

/**
 * npm counts a bundled package's own dependencies as bundled too, and installs an empty folder for one the tarball
 * lacks: undici (the bundled client's) travels inside, as it is installed here (it has no dependencies of its own).
 */
function withUndici(dir) {
  cpSync(path.join(root, 'node_modules', 'undici'), path.join(dir, 'node_modules', 'undici'), { recursive: true });
  return dir;
}

/**
 * swagger-ui-dist depends on @scarf/scarf, whose install script reports the install to its makers (npm 11 stops it
 * with a warning, npm 10 runs it): the files /docs serves travel inside svc-run instead, in a copy of the package
 * without that dependency, so installing svc runs no script at all.
 */
function withSwaggerUi(dir) {
  const from = path.join(root, 'node_modules', 'swagger-ui-dist');
  const to = path.join(dir, 'node_modules', 'swagger-ui-dist');
  mkdirSync(to, { recursive: true });
  for (const file of [...Object.keys(SWAGGER_UI_FILES), 'LICENSE', 'NOTICE']) {
    cpSync(path.join(from, file), path.join(to, file));
  }
  const {
    dependencies: _scarf,
    devDependencies: _dev,
    ...own
  } = JSON.parse(readFileSync(path.join(from, 'package.json'), 'utf8'));
  writeFileSync(path.join(to, 'package.json'), `${JSON.stringify(own, null, 2)}\n`);
  return dir;
}

/** The manifest `m` listing undici as a bundled dependency (the copy withUndici puts in), at the client's range. */
const bundlingUndici = (m) => ({
  ...m,
  dependencies: { ...m.dependencies, undici: manifest('packages/client').dependencies.undici },
  bundleDependencies: [...m.bundleDependencies, 'undici'],
});

const pack = (dir) => npm(['pack', '--pack-destination', release, '--silent'], dir).trim();

const packed = [
  pack(
    staged(
      'packages/plugin-api',
      ['dist', 'README.md'].filter((file) => existsSync(path.join(root, 'packages/plugin-api', file))),
      [],
    ),
  ),
  pack(staged('packages/client', ['dist'], [['@svc/plugin-api', 'packages/plugin-api']])),
  pack(
    withUndici(
      staged(
        'packages/plugin-testing',
        ['dist'],
        [
          ['@svc/plugin-api', 'packages/plugin-api'],
          ['@svc/client', 'packages/client'],
        ],
        // svc-run is the author's own dev dependency (a peer): the harness runs that one.
        bundlingUndici,
      ),
    ),
  ),
];
const server = staged(
  'packages/server',
  ['bin', 'dist'],
  [
    ['@svc/plugin-api', 'packages/plugin-api'],
    ['@svc/client', 'packages/client'],
  ],
  // The client's own dependency, found from the bundled copy through this package's node_modules.
  (m) => {
    const withBoth = bundlingUndici(m);
    return {
      ...withBoth,
      bundleDependencies: [...withBoth.bundleDependencies, 'swagger-ui-dist'],
      files: [...m.files, 'console', 'docs', 'examples', 'plugin-testing'],
    };
  },
);
withSwaggerUi(withUndici(server));
copy('packages/console/dist', path.join(server, 'console'));
// The reference docs travel with the command: `svc --help` names the installed copy of docs/cli.md.
copy('docs', path.join(server, 'docs'));
// The harness `svc plugin create` vendors into a new plugin's folder (with this server and the client) for its tests.
copy('packages/plugin-testing/dist', path.join(server, 'plugin-testing', 'dist'));
copy('packages/plugin-testing/package.json', path.join(server, 'plugin-testing', 'package.json'));
const people = path.join(server, 'examples', 'people');
for (const file of ['plugin.yaml', 'extensions', 'dist', 'ui/dist', 'package.json']) {
  copy(path.join('plugins/people', file), path.join(people, file));
}
packed.push(pack(server));
rmSync(stage, { recursive: true, force: true });
for (const file of packed) console.log(`release/${file}`);
