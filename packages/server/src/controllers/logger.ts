import type { Logger } from '@svc/plugin-api';
import type { Logger as PinoLogger } from 'pino';

/** The plugin API's logger over the server's, tagged with its owner (a plugin's name, or `core`). */
export function pluginLogger(base: PinoLogger, plugin: string): Logger {
  const log = base.child({ plugin });
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
  };
}
