/** Every file `svc plugin create` writes, by path inside the new plugin folder. */
import { indexTs, noteTs, reconcilerTestTs, reconcilerTs, routesTs } from './code.js';
import type { ScaffoldOptions } from './options.js';
import { pluginTestTs } from './plugin-test.js';
import { bundleMjs, gitignore, packageJson, pluginYaml, readme, tsconfigJson, vitestConfig } from './project.js';
import { rolesYaml } from './roles.js';
import { uiEnvTypes, uiIndexTs, uiNotesPage, uiTsconfigJson, uiViteConfig } from './ui.js';

export { displayNameOf, type ScaffoldOptions } from './options.js';

export function scaffoldFiles(o: ScaffoldOptions): Record<string, string> {
  return {
    'plugin.yaml': pluginYaml(o),
    'package.json': packageJson(o),
    'tsconfig.json': tsconfigJson(),
    'bundle.mjs': bundleMjs(),
    'vitest.config.ts': vitestConfig(),
    '.gitignore': gitignore(),
    'README.md': readme(o),
    'src/index.ts': indexTs(o),
    'src/note.ts': noteTs(o),
    'src/reconciler.ts': reconcilerTs(o),
    'src/routes.ts': routesTs(o),
    'src/reconciler.test.ts': reconcilerTestTs(o),
    'src/plugin.test.ts': pluginTestTs(o),
    'extensions/roles.yaml': rolesYaml(o),
    'ui/vite.config.ts': uiViteConfig(),
    'ui/tsconfig.json': uiTsconfigJson(),
    'ui/src/index.ts': uiIndexTs(o),
    'ui/src/NotesPage.vue': uiNotesPage(o),
    'ui/src/env.d.ts': uiEnvTypes(),
  };
}
