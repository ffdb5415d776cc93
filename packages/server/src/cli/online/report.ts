/** How a command's failure reaches the person: the problem's detail and field errors, and the exit code. */
import { SvcApiError, SvcConnectionError } from '@svc/client';
import { UsageError } from './args.js';

/** A failure that is the work's, not the command line's (exit 1), with a message meant for people. */
export class CommandError extends Error {}

/** The lines that explain an error; pure. */
export function describeError(error: unknown): string {
  if (error instanceof SvcApiError) {
    const lines = [`${error.detail} (${error.status} ${error.title})`];
    for (const e of error.errors) lines.push(`  ${e.path || '/'}: ${e.message}`);
    return lines.join('\n');
  }
  return (error as Error).message;
}

/**
 * Runs a command: 0 when it succeeds, 2 for a usage mistake (with the usage), 1 when the work failed (with what the
 * server said). Anything else is a bug and is thrown.
 */
export async function runCommand(name: string, usage: string, work: () => Promise<number | void>): Promise<number> {
  try {
    return (await work()) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`svc ${name}: ${error.message}\nusage: ${usage}`);
      return 2;
    }
    if (
      error instanceof SvcApiError ||
      error instanceof SvcConnectionError ||
      error instanceof CommandError ||
      typeof (error as NodeJS.ErrnoException).code === 'string'
    ) {
      console.error(`svc ${name}: ${describeError(error)}`);
      return 1;
    }
    throw error;
  }
}
