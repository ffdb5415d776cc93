/** The command line's shared parts: strict flag parsing with suggestions, usage errors, the connection flags. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { didYouMean } from '../../util/suggest.js';

/** A mistake in the command line: exit code 2, with the command's usage. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags every command that talks to a server takes; they override `svc login`'s stored ones. */
export const CONNECTION_OPTIONS = {
  server: { type: 'string' },
  token: { type: 'string' },
  'certificate-authority': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const CONNECTION_USAGE =
  '  --server URL, --token T, --certificate-authority FILE (or SVC_SERVER, SVC_TOKEN) override `svc login`.';

/** What `parse` answers: parseArgs' own precise result type for these options. */
export type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>
>;

/** node:util parseArgs, strict; an unknown flag is a UsageError naming the closest known one. */
export function parse<O extends Options>(args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = (error as Error).message;
    const flag = /'(-{1,2}[^'\s]+)'/.exec(message)?.[1];
    if (flag && /Unknown option/.test(message)) {
      const known = Object.entries(options).flatMap(([long, o]) => [`--${long}`, ...(o.short ? [`-${o.short}`] : [])]);
      throw new UsageError(`unknown flag "${flag}"${didYouMean(flag, known)}`);
    }
    throw new UsageError(message.split('\n')[0]!);
  }
}

/** True when the arguments ask for help: then nothing else is parsed, started or contacted. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** A whole number flag, or a UsageError naming it. */
export function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, got "${text}"`);
  return Number(text);
}

/** `90d`, `12h`, `30m` from `now` as an RFC 3339 time, or undefined for `never`. Pure. */
export function expiryOf(text: string, now: Date): string | undefined {
  if (text === 'never') return undefined;
  const match = /^(\d+)([mhd])$/.exec(text);
  if (!match) throw new UsageError(`--expires takes a duration such as 30m, 12h or 90d, or "never"; got "${text}"`);
  const ms = Number(match[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
  return new Date(now.getTime() + ms).toISOString();
}
