// The plugin author's svc (src/plugin-cli.ts) as a package of one file with no dependencies: dist/plugin-cli-package/,
// which `svc plugin create` packs into each new plugin's vendor/ folder (src/cli/scaffold/vendor.ts). esbuild
// bundles the built JavaScript with everything it imports; run after `tsc -b packages/server` (npm run build does).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(server, 'dist', 'plugin-cli-package');
const { version, license, engines } = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8'));

rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'dist'), { recursive: true });
await build({
  entryPoints: [path.join(server, 'dist', 'plugin-cli.js')],
  outfile: path.join(out, 'dist', 'svc.js'),
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  legalComments: 'none',
  // The CommonJS packages inside (undici, ajv, …) require() Node.js builtins: an ES module has no require of its own.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync(path.join(out, 'dist', 'svc.js'), 0o755);
const manifest = {
  name: '@svc/plugin-cli',
  version,
  description: "svc's plugin author commands (svc plugin pack, svc plugin dev, svc login), with no dependencies.",
  license,
  type: 'module',
  bin: { svc: 'dist/svc.js' },
  engines,
  files: ['dist'],
};
writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
