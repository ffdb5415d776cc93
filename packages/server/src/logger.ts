import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** How log lines are written: one JSON object a line, or coloured text for a person at a terminal. */
export type LogFormat = 'pretty' | 'json';

/** The setting's choice, else pretty on a terminal and JSON into anything else (a file, a pipe, a collector). Pure. */
export function chooseLogFormat(setting: LogFormat | undefined, isTerminal: boolean): LogFormat {
  return setting ?? (isTerminal ? 'pretty' : 'json');
}

/** Fields of the access line (api/access-log.ts) that the pretty format folds into its message. */
const ACCESS_FIELDS = 'req,res,responseTime';

/** Credentials never reach a log line, whoever logs a request's headers. */
const REDACT = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

/** Lines waiting for a stalled reader of stdout are dropped past this, rather than growing memory without end. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * The server's logger. JSON goes to stdout through an asynchronous destination: under load lines queue and leave in
 * few writes instead of one blocking write each (pino flushes what is queued when the process exits). The pretty
 * format writes synchronously, as a terminal is read by a person, not a collector; its formatter is loaded only then.
 */
export async function createLogger(level: string, format: LogFormat, destination?: DestinationStream): Promise<Logger> {
  const options: LoggerOptions = { level, base: undefined, redact: REDACT };
  if (format === 'json') {
    return pino(options, destination ?? pino.destination({ dest: 1, sync: false, maxLength: MAX_QUEUED_BYTES }));
  }
  const { default: pretty } = await import('pino-pretty');
  return pino(
    options,
    pretty({
      colorize: destination === undefined ? pretty.isColorSupported : false,
      destination: destination ?? 1,
      sync: true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: `pid,hostname,reqId,${ACCESS_FIELDS}`,
      messageFormat: prettyMessage,
    }),
  );
}

/** The pretty format's message: an access line as `GET /path 200 1.2 ms alice`, and any line's request id after it. */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const id = typeof log.reqId === 'string' ? ` [${log.reqId}]` : '';
  const req = log.req as { method?: string; path?: string; user?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (req?.method && res?.statusCode !== undefined) {
    return `${req.method} ${req.path} ${res.statusCode} ${log.responseTime} ms ${req.user}${id}`;
  }
  return `${log[messageKey] ?? ''}${id}`;
}
