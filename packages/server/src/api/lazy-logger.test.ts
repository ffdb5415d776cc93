import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from './lazy-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info', base: undefined }, stream), lines };
}

const make = (logger: FastifyBaseLogger, bindings: Record<string, unknown>) =>
  lazyChildLoggerFactory.call(undefined as never, logger, bindings, {}, undefined as never);

describe('lazyChildLoggerFactory', () => {
  it('makes no pino child until the request logs', () => {
    const { logger } = capture();
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof logger.child;
    const requestLogger = make(logger, { reqId: 'req-1' });
    expect(children).toBe(0);
    requestLogger.error('boom');
    requestLogger.warn('again');
    expect(children).toBe(1);
  });

  it('logs every level through a child bound to the request id', async () => {
    const { logger, lines } = capture();
    const requestLogger = make(logger, { reqId: 'req-7' });
    requestLogger.error({ err: new Error('bug') }, 'request failed');
    requestLogger.info('fine');
    requestLogger.debug('below the level');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([
      ['req-7', 'request failed'],
      ['req-7', 'fine'],
    ]);
    expect(requestLogger.level).toBe('info');
    requestLogger.child({ step: 'x' }).warn('nested');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.at(-1)).toMatchObject({ reqId: 'req-7', step: 'x', msg: 'nested' });
  });
});
