import { vi } from 'vitest';

/**
 * Polls `condition` every 10 ms until it holds; fails after `timeoutMs`, naming `what`. vitest's own poller
 * (`vi.waitFor`) with a condition that says yes or no and a name for the failure.
 */
export async function eventually(condition: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = 20_000) {
  await vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 10 },
  );
}
