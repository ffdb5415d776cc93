import vue from '@vitejs/plugin-vue';
import { defineProject } from 'vitest/config';

/**
 * The console's component tests (test/components/): single-file components mounted with @vue/test-utils in
 * happy-dom. A project of the root vitest.config.ts, so `npm test` runs them with everything else.
 */
export default defineProject({
  plugins: [vue()],
  test: {
    name: 'console-components',
    environment: 'happy-dom',
    include: ['test/components/**/*.test.ts'],
  },
});
