import { defineConfig } from 'vitest/config';
import { PARTITION_TESTS } from './vitest.config.js';

/**
 * `npm run test:partitions`: replicas in network namespaces of the test's own, their links to a PostgreSQL of the
 * test's own cut silently and healed (packages/server/test/partitions). Needs root, `ip`, `nft` and PostgreSQL's
 * server binaries; skipped, saying why, where they are missing. Kept out of `npm test`: a run takes about a minute.
 */
export default defineConfig({
  test: {
    include: [PARTITION_TESTS],
    exclude: ['**/node_modules/**'],
    testTimeout: 240_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    server: { deps: { external: [/svc-plugin-gen=/] } },
  },
});
