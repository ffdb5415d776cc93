/** The settings of who gets in and for how long, and of the log. */
import { setting } from './setting.js';
import { boolean, duration, exactlyOneOf, oneOf, optional, text, wholeNumber } from './values.js';

export const ACCESS_SETTINGS = [
  setting({
    key: 'adminUsername',
    env: 'SVC_ADMIN_USERNAME',
    arg: 'NAME',
    default: 'admin',
    help: "the first boot's super administrator",
    docs: 'the super administrator created from `SVC_ADMIN_PASSWORD` on the first boot of an empty store',
    parse: text,
  }),
  setting({
    key: 'adminPassword',
    env: 'SVC_ADMIN_PASSWORD',
    // A flag would show in `ps`; a file would keep it after the start that deletes it from the environment.
    flag: false,
    inFile: false,
    help: 'their password; unset: a setup link',
    docs:
      "that administrator's password, at least 8 characters; when unset, nobody is created and the first start " +
      'prints a one-time setup link instead (see [First run](#first-run)). Once the administrator exists (made now, ' +
      'or found), svc deletes it from its process environment, so plugin code and child processes do not find it ' +
      'there. The environment only: no flag, no config file key',
    parse: optional(text),
  }),
  setting({
    key: 'basicAuth',
    env: 'SVC_BASIC_AUTH',
    arg: 'true|false',
    default: 'false',
    help: 'true: accept HTTP Basic credentials',
    docs: '`true` accepts HTTP Basic (`Authorization: Basic`); when off, Basic credentials get a 401',
    parse: boolean,
  }),
  setting({
    key: 'localSignIn',
    env: 'SVC_LOCAL_SIGN_IN',
    arg: 'true|false',
    default: 'true',
    help: 'false: no sign-in with a password',
    docs:
      '`false` turns sign-in with a username and password off: `POST /login` answers `403` and the console offers ' +
      "only the provider's button (see [Single sign-on](#single-sign-on)). Tokens, sessions and HTTP Basic are " +
      'unchanged',
    parse: boolean,
  }),
  setting({
    key: 'sessionIdleTimeout',
    field: 'sessionIdleTimeoutMs',
    env: 'SVC_SESSION_IDLE_TIMEOUT',
    arg: 'TIME',
    default: '1h',
    help: 'a session unused this long ends',
    docs: 'a login session unused this long ends (`90s`, `30m`, `12h`, `7d`; a bare number is seconds)',
    parse: duration,
  }),
  setting({
    key: 'sessionMaxAge',
    field: 'sessionMaxAgeMs',
    env: 'SVC_SESSION_MAX_AGE',
    arg: 'TIME',
    default: '24h',
    help: 'a session ends this long after sign-in',
    docs: 'a login session ends this long after sign-in, however busy',
    parse: duration,
  }),
  setting({
    key: 'maxWatchesPerUser',
    env: 'SVC_MAX_WATCHES_PER_USER',
    arg: 'N',
    // A console tab holds its event stream and a few watches, kubectl one per `--watch`: 100 is far above either,
    // and bounds the memory and hub subscriptions one caller's streams take.
    default: '100',
    help: 'streams one caller may hold open at once',
    docs:
      'the streams one caller may hold open at once: watches (WebSocket and `?watch=true`) and console event ' +
      "streams together; a signed-in user's across all their sessions and tokens, super administrators included, an " +
      "anonymous caller's per client address. One more is a 429 (see [Watch](#watch))",
    parse: wholeNumber('a whole number of open streams, at least 1', 1),
  }),
] as const;

export const LOG_SETTINGS = [
  setting({
    key: 'logLevel',
    env: 'SVC_LOG_LEVEL',
    arg: 'LEVEL',
    default: 'info',
    help: 'debug, info, warn, error… (pino levels)',
    docs:
      'pino level: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent` (`debug` adds quick index ' +
      'builds, `warn` drops the access log)',
    parse: exactlyOneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  }),
  setting({
    key: 'logFormat',
    env: 'SVC_LOG_FORMAT',
    arg: 'pretty|json',
    unset: 'by terminal',
    help: 'unset: pretty on a terminal, else json',
    docs:
      '`pretty` (coloured, one line each) or `json` (one JSON object a line); unset: `pretty` when standard output ' +
      'is a terminal, `json` otherwise',
    parse: optional(oneOf(['pretty', 'json'], 'pretty or json (unset: pretty on a terminal, else json)')),
  }),
  setting({
    key: 'accessLog',
    env: 'SVC_ACCESS_LOG',
    arg: 'true|false',
    default: 'true',
    help: 'one info line per answered request',
    docs: 'one info line per answered request; `false` turns it off (see [Logs](#logs))',
    parse: boolean,
  }),
  setting({
    key: 'requestMetrics',
    env: 'SVC_REQUEST_METRICS',
    arg: 'true|false',
    default: 'true',
    help: 'count and time every request in /metrics',
    docs:
      'every request counted and timed in [`/metrics`](#metrics) (`apiserver_request_total`, ' +
      '`apiserver_request_duration_seconds`); `false` leaves both out',
    parse: boolean,
  }),
] as const;
