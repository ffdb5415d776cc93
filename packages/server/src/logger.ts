import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** How log lines are written: one JSON object a line, or coloured text for a person at a terminal. */
export type LogFormat = 'pretty' | 'json';

/** The setting's choice, else pretty on a terminal and JSON into anything else (a file, a pipe, a collector). Pure. */
export function chooseLogFormat(setting: LogFormat | undefined, isTerminal: boolean): LogFormat {
  return setting ?? (isTerminal ? 'pretty' : 'json');
}

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
    { ...options, formatters: { log: foldAccessLine } },
    pretty({
      colorize: destination === undefined ? pretty.isColorSupported : false,
      destination: destination ?? 1,
      sync: true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,reqId,access',
      messageFormat: prettyMessage,
    }),
  );
}

/**
 * For the pretty format only: an access line's fields (api/access-log.ts) become one text, `GET /path 200 1.2 ms
 * alice`, shown as its message; pino-pretty would otherwise print them again after it. Other lines keep their fields.
 */
export function foldAccessLine(fields: Record<string, unknown>): Record<string, unknown> {
  const { reqId, method, path, status, responseTime, user } = fields;
  if (typeof method !== 'string' || typeof status !== 'number' || typeof responseTime !== 'number') return fields;
  return { reqId, access: `${method} ${path} ${status} ${responseTime} ms ${user}` };
}

/** The pretty format's message: a folded access line's text, or the message; then the request id, if any. */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const id = typeof log.reqId === 'string' ? ` [${log.reqId}]` : '';
  return `${typeof log.access === 'string' ? log.access : (log[messageKey] ?? '')}${id}`;
}

/** The first line a server logs: its version and Node.js's, and the flags, since `svc serve` sets the young
 * generation's size (bin/node-flags.js) and a latency tail problem starts there. */
export function logStart(logger: Logger, version: string): void {
  const flags = process.execArgv.length > 0 ? ` (${process.execArgv.join(' ')})` : '';
  logger.info(
    { version, node: process.version, nodeFlags: process.execArgv, pid: process.pid },
    `svc ${version} on Node.js ${process.version}${flags}`,
  );
}
