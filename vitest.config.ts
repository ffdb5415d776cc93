import { configDefaults, defineConfig } from 'vitest/config';

/** The console's component tests run in a DOM, with Vue's compiler: a project of their own (its vitest.config.ts). */
const COMPONENT_TESTS = 'packages/console/test/components/**';
/** Tests that cut real network links (root, namespaces): `npm run test:partitions` (vitest.partitions.config.ts). */
export const PARTITION_TESTS = '**/*.partition.test.ts';

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: [
            'packages/*/src/**/*.test.ts',
            'plugins/*/src/**/*.test.ts',
            'packages/*/test/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, COMPONENT_TESTS, PARTITION_TESTS],
        },
      },
      'packages/console/vitest.config.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits 1 s by default: under load (CI, Chromium beside the servers) a browser's first request can
    // take longer than that to leave, and a condition that holds later is not a failure. Polls stay every 50 ms.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // One worker process runs file after file with the modules it has loaded: the suite took 23 minutes when every
    // file forked and imported the server afresh, 12.5 without (measured on two cores). Each test file starts its own
    // servers, stores and browsers on temporary folders and schemas, so files share only loaded code.
    isolate: false,
    // Plugin code is loaded by Node itself, through the host's resolution hooks (plugins/loader-hooks.ts), as in production.
    server: { deps: { external: [/svc-plugin-gen=/] } },
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.tmp/vitest-results.json' } : undefined,
    // `npm run test:coverage`: a summary on the terminal, lcov (with an HTML report) in coverage/.
    coverage: {
      provider: 'v8',
      reporter: ['text-summary', 'lcov'],
      include: ['packages/*/src/**/*.ts', 'plugins/*/src/**/*.ts'],
      exclude: ['**/*.suite.ts'],
    },
  },
});
