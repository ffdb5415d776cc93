import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig, settingsFromArgs } from './config.js';
import { chooseLogFormat, createLogger, foldAccessLine, type LogFormat, prettyMessage } from './logger.js';

describe('chooseLogFormat', () => {
  const cases: Array<[LogFormat | undefined, boolean, LogFormat]> = [
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ];
  it.each(cases)('setting %s, terminal %s: %s', (setting, terminal, expected) => {
    expect(chooseLogFormat(setting, terminal)).toBe(expected);
  });
});

describe('foldAccessLine', () => {
  const access = { reqId: 'r-1', method: 'GET', path: '/apis/x', status: 404, responseTime: 1.25, user: 'alice' };
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['an access line', access, { reqId: 'r-1', access: 'GET /apis/x 404 1.25 ms alice' }],
    [
      'a line with a status but no method',
      { plugin: 'p', status: 3, responseTime: 1 },
      { plugin: 'p', status: 3, responseTime: 1 },
    ],
    ['a line with a method but no duration', { method: 'GET', status: 200 }, { method: 'GET', status: 200 }],
    ['any other line', { plugin: 'people', from: 'A', to: 'B' }, { plugin: 'people', from: 'A', to: 'B' }],
  ];
  it.each(cases)('%s', (_name, fields, expected) => {
    expect(foldAccessLine(fields)).toEqual(expected);
  });
});

describe('prettyMessage', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'a folded access line',
      { reqId: 'r-1', access: 'GET /apis/x 404 1.25 ms alice', msg: 'request completed' },
      'GET /apis/x 404 1.25 ms alice [r-1]',
    ],
    ['a line of a request', { reqId: 'r-2', msg: 'request failed' }, 'request failed [r-2]'],
    [
      'any other line',
      { plugin: 'people', msg: 'plugin people: STARTING -> STARTED' },
      'plugin people: STARTING -> STARTED',
    ],
    ['a line without a message', { plugin: 'people' }, ''],
  ];
  it.each(cases)('%s', (_name, log, expected) => {
    expect(prettyMessage(log, 'msg')).toBe(expected);
  });
});

describe('createLogger', () => {
  const capture = () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        written.push(String(chunk));
        callback();
      },
    });
    return { written, stream };
  };

  it('writes an access line as one readable line in the pretty format', async () => {
    const { written, stream } = capture();
    const logger = await createLogger('info', 'pretty', stream);
    logger.info(
      { reqId: 'r-1', method: 'POST', path: '/login', status: 401, responseTime: 3, user: 'system:anonymous' },
      'request completed',
    );
    expect(written.join('')).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/login 401 3 ms system:anonymous \[r-1\]\n$/,
    );
  });

  it('keeps the fields of any other line on its one pretty line', async () => {
    const { written, stream } = capture();
    const logger = await createLogger('info', 'pretty', stream);
    logger.child({ reqId: 'r-2' }).warn({ plugin: 'people', path: '/x' }, 'something');
    expect(written.join('')).toMatch(/ WARN: something \[r-2\] \{"plugin":"people","path":"\/x"\}\n$/);
  });

  it('writes JSON lines in the json format, without credentials in headers', async () => {
    const { written, stream } = capture();
    const logger = await createLogger('info', 'json', stream);
    logger.info({ req: { headers: { authorization: 'Bearer pat_secret', cookie: 'SVC_SESSION=s' } } }, 'x');
    const line = JSON.parse(written.join(''));
    expect(line).toMatchObject({
      level: 30,
      msg: 'x',
      req: { headers: { authorization: '[Redacted]', cookie: '[Redacted]' } },
    });
  });
});

describe('the log settings', () => {
  it('reads SVC_LOG_FORMAT and SVC_ACCESS_LOG, and their flags', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({}).accessLog).toBe(true);
    expect(loadConfig({ SVC_LOG_FORMAT: 'JSON', SVC_ACCESS_LOG: 'off' })).toMatchObject({
      logFormat: 'json',
      accessLog: false,
    });
    const settings = settingsFromArgs(['--log-format', 'pretty', '--access-log=false'], {});
    expect(loadConfig(settings)).toMatchObject({ logFormat: 'pretty', accessLog: false });
  });

  it('refuses a format it does not know, naming the ones it does', () => {
    expect(() => loadConfig({ SVC_LOG_FORMAT: 'yaml' })).toThrow(
      'SVC_LOG_FORMAT must be pretty or json (unset: pretty on a terminal, else json), got "yaml"',
    );
    expect(() => loadConfig({ SVC_ACCESS_LOG: 'sometimes' })).toThrow('SVC_ACCESS_LOG must be true or false');
  });
});
