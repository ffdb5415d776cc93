/**
 * The scaffold's `ui/`: a console page for the plugin's notes, built with Vite in library mode into `ui/dist/main.js`
 * (plugin.yaml's `spec.ui`). Vue, vue-router, PrimeVue and `@svc/console-shared` are left as imports: the console's
 * import map supplies them at run time, so the bundle holds only the plugin's code. The types of what the console
 * shares come from the vendored `@svc/console-shared` package, so vue-tsc checks the UI against the console's own.
 */
import { groupsOf, type ScaffoldOptions } from './options.js';

/** Vite and its Vue plugin, the versions the svc console is built with. */
export const UI_DEV_DEPENDENCIES = {
  vite: '^8.3.8',
  '@vitejs/plugin-vue': '^6.0.11',
  vue: '^3.5.45',
  'vue-router': '^4.6.5',
};

export function uiViteConfig(): string {
  return `import vue from '@vitejs/plugin-vue';
import { defineConfig, type Plugin } from 'vite';

// What the console's import map supplies: left as imports, never bundled.
const SHARED = /^(vue|vue-router|@svc\\/console-shared|primevue\\/.+)$/;
// Under \`npm run dev:ui\` (with svc plugin dev --ui), the same imports stay bare for the console's import map: they
// pass through Vite marked with this URL prefix, which it leaves alone, and the prefix is taken off what it serves.
const MARK = 'http://svc-shared.invalid/';

function sharedFromConsole(): Plugin {
  return {
    name: 'svc-shared-from-console',
    apply: 'serve',
    enforce: 'pre',
    resolveId: (id) => (SHARED.test(id) ? { id: MARK + id, external: true } : undefined),
    // The console runs Vue's production build, which has no hot-update runtime: a saved UI file reloads the page.
    handleHotUpdate({ server }) {
      server.ws.send({ type: 'full-reload' });
      return [];
    },
    configureServer(server) {
      server.middlewares.use((_request, response, next) => {
        const end = response.end.bind(response);
        response.end = ((chunk?: unknown, ...rest: unknown[]) => {
          const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
          if (!text?.includes(MARK)) return end(chunk as string, ...(rest as []));
          const bare = text.replaceAll(MARK, '');
          response.setHeader('content-length', Buffer.byteLength(bare));
          return end(bare, ...(rest as []));
        }) as typeof response.end;
        next();
      });
    },
  };
}

/** The hot-update hooks Vue's dev build has and the console's production build lacks, as no-ops: pages reload instead. */
function vueHotUpdateStub(): Plugin {
  const stub = 'globalThis.__VUE_HMR_RUNTIME__ ??= { createRecord: () => true, rerender() {}, reload() {} };\\n';
  return {
    name: 'svc-vue-hot-update-stub',
    apply: 'serve',
    enforce: 'post',
    transform: (code, id) => (id.endsWith('.vue') ? stub + code : undefined),
  };
}

export default defineConfig({
  plugins: [vue(), sharedFromConsole(), vueHotUpdateStub()],
  // The console, on svc's origin, imports the entry and its modules from here (svc plugin dev --ui).
  server: { host: '127.0.0.1', port: 5173, strictPort: true, cors: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'main.js', cssFileName: 'style' },
    rollupOptions: { external: (id) => SHARED.test(id) },
  },
});
`;
}

export function uiIndexTs(o: ScaffoldOptions): string {
  const route = `${o.name.replace(/(^|-)([a-z0-9])/g, (_m, _d, c: string) => c.toUpperCase())}Notes`;
  return `import { definePlugin } from '@svc/console-shared';

/**
 * The console loads this module when the plugin starts, and drops its routes when it stops. Pages are chunks of their
 * own, fetched when first opened, so this module (loaded by every console at sign-in) stays tiny.
 */
export default definePlugin({
  // The plugin's words by language, merged into the console's (vue-i18n); keys under the plugin's name. The console
  // shows the language its user chose. A language given as a function, \`'zh-CN': () => import('./zh-CN')\`, is
  // fetched only when chosen. Menu names and titles below are these keys.
  messages: {
    en: {
      '${o.name}': {
        notes: 'Notes',
        empty: 'No notes yet. Create one with kubectl apply or the API.',
        name: 'Name',
        title: 'Title',
        phase: 'Phase',
        mayManage: 'You may manage notes.',
      },
    },
    'zh-CN': {
      '${o.name}': {
        notes: '笔记',
        empty: '还没有笔记。可用 kubectl apply 或 API 创建。',
        name: '名称',
        title: '标题',
        phase: '阶段',
        mayManage: '你可以管理笔记。',
      },
    },
  },
  routes: [
    {
      parentName: 'Root',
      route: {
        path: '${o.name}/notes',
        name: '${route}',
        component: () => import('./NotesPage.vue'),
        meta: {
          title: '${o.name}.notes',
          // Shown to holders of the view template's UI permission (extensions/roles.yaml).
          permissions: ['plugin:${o.name}:view'],
          menu: { name: '${o.name}.notes', group: ${JSON.stringify(o.displayName)}, priority: 10 },
        },
      },
    },
  ],
});
`;
}

export function uiNotesPage(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  return `<script setup lang="ts">
import { client, useI18n, useLiveList } from '@svc/console-shared';
import type { ExtensionObject } from '@svc/plugin-api';
import Column from 'primevue/column';
import DataTable from 'primevue/datatable';
import Message from 'primevue/message';
import { ref } from 'vue';

type Note = ExtensionObject<{ title?: string }, { phase?: string }>;

const SIZE = 20;
const first = ref(0);
// The words of this plugin's messages (ui/src/index.ts), in the language the console shows.
const { t } = useI18n();
const notes = client.resource<Note>({ group: '${g.own}', version: '${g.version}', plural: 'notes' });
// A live page: listed, then watched from the list's revision, so notes created or changed anywhere show at once.
const { rows, total, loading, error } = useLiveList<Note>({
  resource: () => notes,
  query: () => ({ page: first.value / SIZE + 1, size: SIZE }),
  // The server's order is the newest first: a new note goes to the top of the first page.
  newestFirst: () => first.value === 0,
});
</script>

<template>
  <h1>{{ t('${o.name}.notes') }}</h1>
  <Message v-if="error" severity="error" role="alert" :closable="false">{{ error }}</Message>
  <DataTable
    :value="rows"
    :loading="loading"
    lazy
    paginator
    :rows="SIZE"
    :first="first"
    :total-records="total"
    data-key="metadata.name"
    :table-props="{ 'aria-label': t('${o.name}.notes') }"
    scrollable
    @page="first = $event.first"
  >
    <template #empty>{{ t('${o.name}.empty') }}</template>
    <Column field="metadata.name" :header="t('${o.name}.name')" />
    <Column field="spec.title" :header="t('${o.name}.title')" />
    <Column field="status.phase" :header="t('${o.name}.phase')" />
  </DataTable>
  <HasPermission :permissions="['plugin:${o.name}:manage']">
    <p>{{ t('${o.name}.mayManage') }}</p>
  </HasPermission>
</template>
`;
}

/**
 * Types of what the console supplies that the UI does not install: PrimeVue's components (the console's own copy, in
 * its import map). The shared modules' types come from the vendored @svc/console-shared package.
 */
export function uiEnvTypes(): string {
  return `// PrimeVue comes from the svc console at run time (its import map); the UI does not install it.
declare module 'primevue/*' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
`;
}

export function uiTsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      strict: true,
      jsx: 'preserve',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      skipLibCheck: true,
      noEmit: true,
    },
    // The UI's own sources, as the browser runs them; vite.config.ts runs in Node.js and is Vite's to read.
    include: ['src/**/*.ts', 'src/**/*.vue'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
