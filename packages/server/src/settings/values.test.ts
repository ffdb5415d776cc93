import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reading } from './setting.js';
import {
  allowedHosts,
  boolean,
  duration,
  exactlyOneOf,
  indexSnapshots,
  items,
  oneOf,
  optional,
  origins,
  paths,
  port,
  portOrOff,
  postgresUrl,
  replicaId,
  text,
  trustProxy,
  wholeNumber,
} from './values.js';

const at: Reading = { name: 'SVC_X', resolve: (p) => path.resolve('/base', p), earlier: { dataDir: '/srv/data' } };
const ports = port('a port number');
const portsOrOff = portOrOff('a port number or "off"');
const events = wholeNumber('a whole number of events, at least 1', 1);
const syncs = oneOf(['normal', 'full'], 'normal or full');
const levels = exactlyOneOf(['info', 'debug']);

describe('the parsers of settings', () => {
  it.each([
    ['port', () => ports('8090', at), 8090],
    ['port 0', () => ports('0', at), 0],
    ['port with spaces', () => ports(' 80 ', at), 80],
    ['https port off', () => portsOrOff('OFF', at), undefined],
    ['https port no', () => portsOrOff('no', at), undefined],
    ['https port', () => portsOrOff('8443', at), 8443],
    ['whole number', () => events('100000', at), 100_000],
    ['whole number in exponent form', () => events('1e3', at), 1000],
    ['boolean on', () => boolean('on', at), true],
    ['boolean TRUE', () => boolean('TRUE', at), true],
    ['boolean 0', () => boolean('0', at), false],
    ['choice in any case', () => syncs('FULL', at), 'full'],
    ['exact choice', () => levels('debug', at), 'debug'],
    ['duration in seconds', () => duration('90', at), 90_000],
    ['duration in minutes', () => duration('30m', at), 1_800_000],
    ['duration in days', () => duration('7d', at), 604_800_000],
    ['postgres URL', () => postgresUrl('postgresql://db/svc', at), 'postgresql://db/svc'],
    ['allowed hosts', () => allowedHosts(' A.example ,[::1],*', at), ['a.example', '[::1]', '*']],
    ['allowed hosts of only commas', () => allowedHosts(',', at), []],
    [
      'origins',
      () => origins('https://App.example, http://localhost:5173/', at),
      ['https://app.example', 'http://localhost:5173'],
    ],
    ['trust proxy false', () => trustProxy('off', at), false],
    ['trust proxy true', () => trustProxy('yes', at), true],
    ['trust proxy hops', () => trustProxy('2', at), 2],
    ['trust proxy CIDRs', () => trustProxy('10.0.0.0/8, ::1', at), '10.0.0.0/8, ::1'],
    ['index snapshots on', () => indexSnapshots('on', at), 10_000],
    ['index snapshots OFF', () => indexSnapshots('OFF', at), undefined],
    ['index snapshots minimum', () => indexSnapshots('250', at), 250],
    ['paths from the base', () => paths('a::/b', at), ['/base/a', '/b']],
    ['items trimmed', () => items(' a, ,b ', ','), ['a', 'b']],
    ['text as given', () => text(' x '), ' x '],
    ['optional without a value', () => optional(text)('  ', at), undefined],
    ['optional with one', () => optional(text)('x', at), 'x'],
    ['replica id given', () => replicaId('r1', at), 'r1'],
  ])('reads %s', (_, read, expected) => {
    expect(read()).toEqual(expected);
  });

  it('names the data directory in the default replica id, so it stays across restarts', () => {
    expect(replicaId('', at)).toMatch(new RegExp(`^${hostname()}-[0-9a-f]{6}$`));
    expect(replicaId('', at)).toBe(replicaId('', at));
    expect(replicaId('', { ...at, earlier: { dataDir: '/other' } })).not.toBe(replicaId('', at));
  });

  it.each([
    [() => ports('http', at), 'SVC_X must be a port number, got "http"'],
    [() => ports('65536', at), 'SVC_X must be a port number, got "65536"'],
    [() => portsOrOff('maybe', at), 'SVC_X must be a port number or "off", got "maybe"'],
    [() => events('0', at), 'SVC_X must be a whole number of events, at least 1, got "0"'],
    [() => events('1.5', at), 'SVC_X must be a whole number of events, at least 1, got "1.5"'],
    [() => boolean('maybe', at), 'SVC_X must be true or false, got "maybe"'],
    [
      () => origins('app.example', at),
      'SVC_X must be comma-separated origins such as https://app.example or http://localhost:5173, got "app.example"',
    ],
    [() => origins('https://app.example/path', at), 'got "https://app.example/path"'],
    [() => origins('ftp://app.example', at), 'got "ftp://app.example"'],
    [() => syncs('fast', at), 'SVC_X must be normal or full, got "fast"'],
    [() => levels('INFO', at), 'SVC_X must be one of info, debug, got "INFO"'],
    [() => duration('0', at), 'SVC_X must be a positive duration such as 30m, 12h or 7d, got "0"'],
    [() => duration('1w', at), 'SVC_X must be a positive duration such as 30m, 12h or 7d, got "1w"'],
    [
      () => postgresUrl('mysql://db', at),
      'SVC_X must be a postgres:// URL (unset it to use the embedded SQLite store)',
    ],
    [
      () => allowedHosts('a.example,b.example:8090', at),
      'SVC_X must be comma-separated host names or addresses without a port (or *), got "b.example:8090"',
    ],
    [() => trustProxy('everyone', at), 'SVC_X must be true, false, a number of hops or a list of addresses/CIDRs'],
    [() => indexSnapshots('-3', at), 'SVC_X must be on, off or the least number of objects a model needs to get one'],
  ])('refuses a bad value naming the setting and what it takes (%#)', (read, message) => {
    expect(read).toThrow(message);
  });
});
