import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

// The svc the dev server forwards API calls to (`npm run dev -w packages/console`).
const target = process.env.SVC_URL ?? 'http://127.0.0.1:8090';
const proxied = ['/api', '/apis', '/login', '/logout', '/version', '/openapi', '/docs'];

export default defineConfig({
  base: '/console/',
  plugins: [vue()],
  build: {
    // @svc/client loads undici only when given a CA, which a browser never is: keep it out of the bundle.
    rollupOptions: { external: ['undici'] },
    reportCompressedSize: true,
  },
  server: {
    proxy: Object.fromEntries(proxied.map((prefix) => [prefix, { target, ws: true }])),
  },
});
