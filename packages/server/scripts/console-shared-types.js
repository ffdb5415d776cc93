// The types of what the console shares with plugin UIs (@svc/console-shared), as a package of one declaration file:
// dist/console-shared-types/, which `svc plugin create` packs into each new plugin's vendor/ folder
// (src/cli/scaffold/vendor.ts), so a plugin UI type-checks against what the console really shares. dts-bundle-generator
// bundles ../console-shared/src/index.ts's declarations with the client's and the plugin API's inlined, Vue's,
// vue-router's and vue-i18n's left as imports. It takes a while, so it is skipped when the output is newer than
// every source it reads. Run after `tsc -b` (npm run build does).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.join(server, '..', 'console-shared');
const out = path.join(server, 'dist', 'console-shared-types');
const declarations = path.join(out, 'index.d.ts');
const inputs = [
  path.join(shared, 'src'),
  path.join(shared, 'package.json'),
  path.join(shared, 'tsconfig.types.json'),
  path.join(server, '..', 'client', 'dist'),
  path.join(server, '..', 'plugin-api', 'dist'),
];

const newest = (entry) => {
  if (!existsSync(entry)) return Number.POSITIVE_INFINITY;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
};

if (existsSync(declarations) && statSync(declarations).mtimeMs > Math.max(...inputs.map(newest))) {
  console.log('console-shared types: up to date');
} else {
  mkdirSync(out, { recursive: true });
  const bin = path.join(server, '..', '..', 'node_modules', '.bin', 'dts-bundle-generator');
  execFileSync(
    existsSync(bin) ? bin : 'dts-bundle-generator',
    [
      '--project',
      'tsconfig.types.json',
      '--out-file',
      declarations,
      '--external-inlines',
      '@svc/client',
      '--external-inlines',
      '@svc/plugin-api',
      '--no-banner',
      '--no-check',
      '--silent',
      'src/index.ts',
    ],
    { cwd: shared, stdio: 'inherit' },
  );
  const own = JSON.parse(readFileSync(path.join(shared, 'package.json'), 'utf8'));
  const { version, license, engines } = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8'));
  const manifest = {
    name: '@svc/console-shared',
    version,
    description: "The types of what svc's console shares with plugin UIs; the console supplies the code at run time.",
    license,
    types: 'index.d.ts',
    engines,
    files: ['index.d.ts'],
    // The types name these; the plugin's UI has them (its build and type check need them anyway).
    peerDependencies: { ...own.peerDependencies, 'vue-i18n': own.dependencies['vue-i18n'] },
  };
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}
