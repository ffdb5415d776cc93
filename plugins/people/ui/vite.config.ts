import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

/**
 * The people plugin's UI: one ES module (`dist/main.js`) and its stylesheet (`dist/style.css`), named by plugin.yaml's
 * `spec.ui` and `spec.uiStyle`. Vue, vue-router, PrimeVue and @svc/console-shared stay imports: the console's import
 * map gives the bundle its own instances, so the bundle holds only this plugin's code.
 */
const SHARED = /^(vue|vue-router|@svc\/console-shared|primevue\/.+)$/;

export default defineConfig({
  plugins: [vue()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'main.js', cssFileName: 'style' },
    rollupOptions: { external: (id) => SHARED.test(id) },
  },
});
