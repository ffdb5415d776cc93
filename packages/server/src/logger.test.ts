import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig, settingsFromArgs } from './config.js';
import { chooseLogFormat, createLogger, type LogFormat, prettyMessage } from './logger.js';

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

describe('prettyMessage', () => {
  const access = {
    reqId: 'r-1',
    req: { method: 'GET', path: '/apis/x', user: 'alice' },
    res: { statusCode: 404 },
    responseTime: 1.25,
    msg: 'request completed',
  };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an access line', access, 'GET /apis/x 404 1.25 ms alice [r-1]'],
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
      {
        reqId: 'r-1',
        req: { method: 'POST', path: '/login', user: 'system:anonymous' },
        res: { statusCode: 401 },
        responseTime: 3,
      },
      'request completed',
    );
    expect(written.join('')).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/login 401 3 ms system:anonymous \[r-1\]\n$/,
    );
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
