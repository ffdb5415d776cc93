import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

type Bindings = Record<string, unknown>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Fastify gives every request a child logger bound to its request id. With request logging off, almost no request
 * logs anything, yet pino serializes the bindings of each child it makes, on every request. This factory hands out a
 * stand-in that makes the real child only when the request first logs, so a failed request still logs with its
 * request id.
 */
export const lazyChildLoggerFactory: ChildLoggerFactory = (logger, bindings, options) =>
  new LazyChildLogger(logger, bindings, options as Record<string, unknown>) as unknown as FastifyBaseLogger;

class LazyChildLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: Record<string, unknown>,
  ) {}

  get level(): string {
    return this.real().level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  child(bindings: Bindings, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }
}

// One method per level, each forwarding to the real child (made on first use).
for (const level of LEVELS) {
  Object.defineProperty(LazyChildLogger.prototype, level, {
    value(this: { real(): FastifyBaseLogger }, ...args: unknown[]) {
      return (this.real()[level] as (...a: unknown[]) => void)(...args);
    },
  });
}
