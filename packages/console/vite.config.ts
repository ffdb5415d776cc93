import { CONSOLE_API } from '@svc/plugin-api';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type Plugin } from 'vite';
import { earlyRequestsScript } from './early-requests';
import { primeVueThemeCss } from './primevue-theme';
import { entryName, SHARED_MODULES } from './shared-modules';
import { CONSOLE_THEME } from './src/theme';

// The svc the dev server forwards API calls to (`npm run dev -w packages/console`).
const target = process.env.SVC_URL ?? 'http://127.0.0.1:8090';
const proxied = ['/api', '/apis', '/login', '/logout', '/version', '/openapi', '/docs', '/plugins'];

/** svc replaces this in index.html with a fresh nonce per response, named by its Content-Security-Policy. */
export const NONCE_PLACEHOLDER = '__SVC_CSP_NONCE__';

const VIRTUAL = '\0svc-shared:';

/**
 * Builds each shared module as an entry of its own and writes the import map that names them into index.html, before
 * any module script (README "Plugin UIs").
 */
function sharedModules(): Plugin {
  return {
    name: 'svc-shared-modules',
    apply: 'build',
    options(options) {
      const input = typeof options.input === 'object' && !Array.isArray(options.input) ? options.input : {};
      options.input = {
        index: 'index.html',
        ...input,
        ...Object.fromEntries(Object.keys(SHARED_MODULES).map((s) => [entryName(s), `${VIRTUAL}${s}`])),
      };
      // Entries keep their exports: plugin bundles import them.
      options.preserveEntrySignatures = 'exports-only';
      return options;
    },
    resolveId(id) {
      return id.startsWith(VIRTUAL) ? id : undefined;
    },
    load(id) {
      return id.startsWith(VIRTUAL) ? SHARED_MODULES[id.slice(VIRTUAL.length)] : undefined;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle) return html;
        const imports: Record<string, string> = {};
        for (const [specifier] of Object.entries(SHARED_MODULES)) {
          const chunk = Object.values(ctx.bundle).find(
            (c) => c.type === 'chunk' && c.isEntry && c.name === entryName(specifier),
          );
          if (!chunk) throw new Error(`the shared module ${specifier} was not built`);
          imports[specifier] = `/console/${chunk.fileName}`;
        }
        const map = `<script type="importmap" nonce="${NONCE_PLACEHOLDER}">${JSON.stringify({ imports })}</script>`;
        return html.replace(/<head>/, `<head>\n  ${map}`);
      },
    },
  };
}

const THEME_CSS = 'virtual:primevue-theme.css';

/**
 * `import 'virtual:primevue-theme.css'`: PrimeVue's theme (src/theme.ts) as a stylesheet made at build time, with the
 * styles of every PrimeVue component the console shares, which are all that it and plugin UIs can use (README
 * "Components and the page's policy"). It is bundled with the console's other CSS, so the browser computes none.
 */
function primeVueTheme(): Plugin {
  // The shared components and directives (`export { default } from 'primevue/…'`), not the composables.
  const specifiers = Object.entries(SHARED_MODULES)
    .filter(([s, code]) => s.startsWith('primevue/') && code.startsWith('export { default }'))
    .map(([s]) => s);
  return {
    name: 'svc-primevue-theme',
    resolveId: (id) => (id === THEME_CSS ? `\0${THEME_CSS}` : undefined),
    load: (id) => (id === `\0${THEME_CSS}` ? primeVueThemeCss(CONSOLE_THEME, specifiers) : undefined),
  };
}

/**
 * Puts the script that asks for the session and the plugin UIs before any module loads (early-requests.ts) into the
 * page's head, after the import map (the plugin entries it preloads resolve their imports through the map).
 */
function earlyRequests(): Plugin {
  return {
    name: 'svc-early-requests',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'script',
        attrs: { nonce: NONCE_PLACEHOLDER },
        children: earlyRequestsScript(CONSOLE_API),
        injectTo: 'head-prepend',
      },
    ],
  };
}

export default defineConfig({
  base: '/console/',
  plugins: [vue(), primeVueTheme(), sharedModules(), earlyRequests()],
  // Vite puts this nonce on the tags it writes; svc swaps in a fresh one per response.
  html: { cspNonce: NONCE_PLACEHOLDER },
  // vue-i18n's Composition API only, no devtools: the smaller build. Messages compile without eval (JIT), which the
  // Content-Security-Policy requires.
  define: {
    __VUE_I18N_FULL_INSTALL__: true,
    __VUE_I18N_LEGACY_API__: false,
    __INTLIFY_PROD_DEVTOOLS__: false,
  },
  build: {
    // @svc/client loads undici only when given a CA, which a browser never is: keep it out of the bundle.
    rollupOptions: { external: ['undici'] },
    reportCompressedSize: true,
  },
  server: {
    proxy: Object.fromEntries(proxied.map((prefix) => [prefix, { target, ws: true }])),
  },
});
