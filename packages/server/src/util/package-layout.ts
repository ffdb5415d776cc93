import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * svc runs from two layouts: the repository (packages/server beside packages/console and plugins/) and the installed
 * package `svc-run` (npm run package), which carries the console's files in `console/` and the example plugin in
 * `examples/` beside `dist/`. Each place is named once per layout; the installed one is looked for first.
 */
export function firstExistingPath(candidates: readonly URL[]): string {
  const paths = candidates.map((candidate) => fileURLToPath(candidate));
  return paths.find((candidate) => existsSync(candidate)) ?? paths[paths.length - 1]!;
}
