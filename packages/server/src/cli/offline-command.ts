/**
 * What the offline commands (`svc export`, `svc import`, `svc admin`) share: strict flag parsing with a suggestion, the
 * flags that say where the store is, and one way to turn a failure into an exit code (0 done, 1 failed, 2 usage).
 */
import path from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { StoreLocation } from '../store/open-store.js';
import { columns } from '../util/columns.js';
import { didYouMean } from '../util/suggest.js';

/** A mistake in the command line: exit code 2, with the usage. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Where the store is: the same flags and SVC_* variables as `svc serve`. */
export const STORE_OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'database-schema': { type: 'string' },
} as const satisfies Options;

export const STORE_USAGE = '[--data-dir D | --database-url URL [--database-schema S]]';

/** The store flags, as rows of a command's help. */
export const STORE_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['--data-dir D', 'the data directory, with its SQLite database (SVC_DATA_DIR, default ./data)'],
  ['--database-url URL', 'a postgres:// database instead (SVC_DATABASE_URL)'],
  ['--database-schema S', 'its schema (SVC_DATABASE_SCHEMA, default public)'],
];

/** A command's help: its synopsis, a few lines on what it does, and its flags, aligned. */
export function helpOf(synopsis: string, about: string, flags: ReadonlyArray<readonly [string, string]>): string {
  return [synopsis, about, ...columns(flags).map((line) => `  ${line}`)].join('\n');
}

type Parsed<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>
>;

/** parseArgs, strict; an unknown flag names the closest known one. */
export function parseCommandLine<T extends Options>(args: string[], options: T, maxPositionals = 0): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const flag = /'(-{1,2}[^'\s]+)'/.exec((error as Error).message)?.[1];
    const known = Object.keys(options).map((o) => `--${o}`);
    throw new UsageError(flag ? `unknown flag "${flag}"${didYouMean(flag, known)}` : (error as Error).message);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`);
  }
  return parsed;
}

export function storeLocationOf(
  values: { 'data-dir'?: string; 'database-url'?: string; 'database-schema'?: string },
  env: NodeJS.ProcessEnv,
): StoreLocation {
  const databaseUrl = values['database-url'] ?? (env.SVC_DATABASE_URL || undefined);
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(`--database-url must be a postgres:// URL, got "${databaseUrl}"`);
  }
  return {
    dataDir: path.resolve(values['data-dir'] ?? (env.SVC_DATA_DIR || './data')),
    databaseUrl,
    schema: values['database-schema'] ?? (env.SVC_DATABASE_SCHEMA || undefined),
    create: false,
  };
}

/** How a location is named in messages; never the URL's password. */
export function describeLocation(location: StoreLocation): string {
  if (!location.databaseUrl) return `the SQLite database in ${location.dataDir}`;
  const url = new URL(location.databaseUrl);
  url.password = '';
  return `the PostgreSQL database ${url.href} (schema ${location.schema ?? 'public'})`;
}

/**
 * Runs a command body and answers its exit code. Anything else that fails (an unknown user, a store that is not
 * empty, a database that cannot be reached) is exit code 1 with its message, as `svc` reports any failure.
 */
export async function exitCodeOf(command: string, usage: string, run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      // The synopsis only: the whole help is a --help away.
      console.error(`svc ${command}: ${error.message}\nusage: ${usage.split('\n', 1)[0]}`);
      return 2;
    }
    console.error(`svc ${command}: ${(error as Error).message}`);
    return 1;
  }
}
