/** The scaffold's project files: manifest, package.json, tsconfig, vitest config, .gitignore. */
import { CONSOLE_API, PLUGIN_API_VERSION } from '@svc/plugin-api';
import { groupsOf, type ScaffoldOptions } from './options.js';
import { UI_DEV_DEPENDENCIES } from './ui.js';
import { PLUGIN_CLI_PACKAGE } from './vendor.js';

export function pluginYaml(o: ScaffoldOptions): string {
  return `apiVersion: ${PLUGIN_API_VERSION}
kind: Plugin
metadata:
  name: ${o.name}
spec:
  version: 0.1.0
  # The host versions this plugin runs on (a semver range), checked at install and at every start.
  requires: "${o.requires}"
  # The ESM entry: src/index.ts and the npm packages it imports, bundled into one file by \`npm run build\`.
  main: dist/index.js
  displayName: ${JSON.stringify(o.displayName)}
  description: Notes with a draft/published status, a console stats API and a public list of published notes.
  author:
    name: Your name
  # The console UI, built from ui/src by \`npm run build\` (Vite); its folder, ui/dist/, is served publicly.
  ui: ui/dist/main.js
`;
}

export function packageJson(o: ScaffoldOptions): string {
  const pkg = {
    name: `svc-plugin-${o.name}`,
    version: '0.1.0',
    private: true,
    description: `${o.displayName}: an svc plugin.`,
    type: 'module',
    main: 'dist/index.js',
    // What `svc plugin pack` puts in the archive (with plugin.yaml, extensions/, package.json and README).
    files: ['dist', 'extensions', 'plugin.yaml', 'ui/dist'],
    scripts: {
      // Types checked (the server side by tsc, the UI by vue-tsc against the console's shared types); the server side
      // bundled by esbuild (bundle.mjs); the UI built by Vite.
      build: 'npm run typecheck && node bundle.mjs && vite build ui',
      typecheck: 'tsc --noEmit -p . && vue-tsc --noEmit -p ui',
      // What \`npm run dev\` rebuilds on each save: the bundle alone, in milliseconds.
      'build:server': 'node bundle.mjs',
      // Rebuilds the server side and upgrades the plugin in a running svc on each save (docs/plugins.md "Develop").
      dev: 'svc plugin dev',
      // The UI from Vite's dev server, with hot reload in the console: \`npm run dev -- --ui <its src/index.ts URL>\`.
      'dev:ui': 'vite ui',
      // The plugin tests run the built entry in a real svc (src/plugin.test.ts): the bundle first, in milliseconds.
      pretest: 'node bundle.mjs',
      test: 'vitest run',
      pack: 'svc plugin pack',
    },
    // The host supplies @svc/plugin-api at run time; this copy, packed into the folder, is for types and tests.
    // Packages added here are bundled into dist/index.js by \`npm run build\`.
    dependencies: { '@svc/plugin-api': `file:${o.pluginApiTarball}` },
    devDependencies: {
      // The svc command of \`npm run pack\` and \`npm run dev\`, packed into the folder by the svc that made it.
      [PLUGIN_CLI_PACKAGE]: `file:${o.pluginCliTarball}`,
      // The types of what the console shares with the UI (its code comes from the console at run time).
      '@svc/console-shared': `file:${o.consoleSharedTarball}`,
      // The test harness and the svc it starts in the test's process, packed into the folder by the svc that made it.
      '@svc/plugin-testing': `file:${o.harness.pluginTesting}`,
      'svc-run': `file:${o.harness.server}`,
      'vue-i18n': o.vueI18nRange,
      'vue-tsc': o.vueTscRange,
      esbuild: o.esbuildRange,
      typescript: o.typescriptRange,
      vitest: o.vitestRange,
      ...UI_DEV_DEPENDENCIES,
    },
    // The svc packages the harness and the server depend on are not on the npm registry: the vendored copies serve.
    overrides: {
      '@svc/plugin-api': `file:${o.pluginApiTarball}`,
      '@svc/client': `file:${o.harness.client}`,
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      sourceMap: true,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
    // Tests run from the sources with vitest; they are not part of the plugin.
    exclude: ['src/**/*.test.ts'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function vitestConfig(): string {
  return `import { defineConfig } from 'vitest/config';

export default defineConfig({
  // plugin.test.ts starts svc before its tests: give a loaded machine time.
  test: { include: ['src/**/*.test.ts'], hookTimeout: 60_000 },
});
`;
}

export function gitignore(): string {
  // Only the archives `npm run pack` writes at the top: vendor/ holds the plugin API the build depends on.
  return `node_modules/
dist/
/*.tgz
*.tsbuildinfo
`;
}

export function readme(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `# ${o.displayName}

An svc plugin, made by \`svc plugin create ${o.name}\`.

\`\`\`sh
npm install          # @svc/plugin-api, the svc command and the test harness from vendor/ (keep that folder, commit it)
npm run build        # types checked; src/ and its npm packages → dist/index.js; ui/src/ → ui/dist/main.js
npm test             # vitest: the reconciler's logic, and the plugin in a real svc (src/plugin.test.ts)
npm run pack         # ${o.name}-0.1.0.tgz, ready to install
\`\`\`

\`npm install <package>\` adds a dependency: \`npm run build\` bundles it into \`dist/index.js\` (esbuild, see
\`bundle.mjs\`), so the archive needs no \`node_modules\`. \`@svc/plugin-api\` and Node.js's own modules stay imports:
the host provides them.

Try it without packing: \`svc serve --plugins-dir <the folder holding this one>\` loads the folder as it is (rebuild,
then stop and start the plugin to run new code). Or install the archive:
\`curl -H "$H" -F file=@${o.name}-0.1.0.tgz $S${CONSOLE_API}/plugins/install\`.

## What is inside

| file | |
|---|---|
| \`plugin.yaml\` | the manifest: name, version, the host versions it runs on, the entry |
| \`bundle.mjs\` | bundles the server side into \`dist/index.js\` with esbuild |
| \`src/index.ts\` | the entry: registers the model, the reconciler and the custom APIs |
| \`src/note.ts\` | the \`Note\` model (\`${g.own}/${g.version}\`): JSON schema, indexes |
| \`src/reconciler.ts\` | fills \`status\` (phase, word count, excerpt); its logic is pure, tested in \`reconciler.test.ts\` |
| \`src/plugin.test.ts\` | the plugin in a real svc, started in the test's process by \`@svc/plugin-testing\`, asked over HTTP |
| \`src/routes.ts\` | \`GET /apis/${g.console}/${g.version}/stats\` and the public \`GET /apis/${g.public}/${g.version}/notes\` |
| \`ui/\` | the console page (\`ui/src/NotesPage.vue\`, routes in \`ui/src/index.ts\`), built by Vite into \`ui/dist/main.js\` (\`spec.ui\`); Vue, PrimeVue and \`@svc/console-shared\` come from the console |
| \`extensions/roles.yaml\` | role templates: \`${o.name}-role-view-notes\`, \`${o.name}-role-manage-notes\`, and \`${o.name}-role-view-public\` that lets anonymous visitors read published notes |

## APIs

- \`/apis/${g.own}/${g.version}/notes\`: the generated API (list, get, create, update, patch, delete, watch).
- \`GET /apis/${g.console}/${g.version}/stats\`: \`{ total, published, drafts }\`, counted from an index.
- \`GET /apis/${g.public}/${g.version}/notes\` and \`…/notes/{name}\`: published notes, open to everyone.

Every API answers only the super administrator until a role allows more: give users the view or manage template.
`;
}

export function bundleMjs(): string {
  return `// Bundles the server side, src/index.ts and every npm package it imports, into one ES module: dist/index.js, the
// entry plugin.yaml names. The archive then needs no node_modules. @svc/plugin-api and Node.js's builtins stay
// imports: the host provides them.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  external: ['@svc/plugin-api'],
  // A CommonJS package bundled into an ES module may still require() a Node.js builtin: give it a require.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
`;
}
