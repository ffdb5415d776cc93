/** The settings of the listeners: addresses, ports, certificates, and which hosts and proxies are believed. */
import { setting } from './setting.js';
import {
  absolutePath,
  allowedHosts,
  duration,
  items,
  optional,
  origins,
  port,
  portOrOff,
  text,
  trustProxy,
} from './values.js';

export const LISTEN_SETTINGS = [
  setting({
    key: 'host',
    env: 'SVC_HOST',
    arg: 'ADDRESS',
    default: '127.0.0.1',
    help: 'the address to listen on',
    docs: 'address to listen on',
    parse: text,
  }),
  setting({
    key: 'port',
    env: 'SVC_PORT',
    arg: 'N',
    default: '8090',
    help: 'the HTTP port; 0 picks a free one',
    docs: '`0` picks a free port; the URL is printed on one line, `svc listening on http://HOST:PORT`',
    parse: port('a port number (0 picks a free one)'),
  }),
  setting({
    key: 'httpsPort',
    env: 'SVC_HTTPS_PORT',
    arg: 'N|off',
    default: '8443',
    help: 'the HTTPS port; 0 picks a free one, off: none',
    docs:
      'the HTTPS listener beside HTTP (same API); `0` picks a free port, `off` turns it off. Both URLs are printed at ' +
      'start',
    parse: portOrOff('a port number (0 picks a free one) or "off"'),
  }),
  setting({
    key: 'tlsCert',
    field: 'tlsCertFile',
    env: 'SVC_TLS_CERT',
    arg: 'FILE',
    help: 'your certificate (PEM); unset: one made',
    docs:
      'your own certificate (chain), a PEM file; give `SVC_TLS_KEY` with it. Unset: a CA and a server certificate ' +
      'are made on first start under `<data dir>/tls` (`ca.crt` is what clients trust) and kept; the server ' +
      'certificate is made again when it nears expiry or misses a host',
    parse: optional(absolutePath),
  }),
  setting({
    key: 'tlsKey',
    field: 'tlsKeyFile',
    env: 'SVC_TLS_KEY',
    arg: 'FILE',
    help: "your certificate's key (PEM)",
    docs: 'the private key of `SVC_TLS_CERT`, a PEM file: both or neither',
    parse: optional(absolutePath),
  }),
  setting({
    key: 'tlsHosts',
    env: 'SVC_TLS_HOSTS',
    arg: 'A,B',
    list: ',',
    help: 'more names the made certificate names',
    docs:
      'comma-separated names and addresses the made certificate names besides `localhost`, `127.0.0.1`, `::1` and ' +
      '`SVC_HOST`; the made CA may vouch for these names only (see ' +
      '[Security headers and TLS](#security-headers-and-tls))',
    parse: (raw) => items(raw, ','),
  }),
  setting({
    key: 'allowedHosts',
    env: 'SVC_ALLOWED_HOSTS',
    arg: 'A,B',
    unset: 'by listen address',
    list: ',',
    help: 'Host names answered besides loopback; * any',
    docs:
      "comma-separated names and addresses (no port; `*` allows any) a request's `Host` header may name besides " +
      'loopback ones (`localhost`, `127.x.x.x`, `::1`), `SVC_HOST` and `SVC_TLS_HOSTS`, which are always allowed. ' +
      'Unset: on a loopback `SVC_HOST` only those are answered, so a web page whose name an attacker points at ' +
      '127.0.0.1 (DNS rebinding) gets a 400; on any other address any host is. A refused host gets a 400 ' +
      'problem+json naming this setting',
    parse: optional(allowedHosts),
  }),
  setting({
    key: 'corsOrigins',
    env: 'SVC_CORS_ORIGINS',
    arg: 'A,B',
    unset: 'off',
    list: ',',
    help: 'web origins whose pages may call the API',
    docs:
      'comma-separated origins (`https://app.example`, scheme, host and port) whose web pages may call the API from ' +
      'the browser with a token (CORS: `Access-Control-Allow-Origin` for them, preflights answered); cookies are ' +
      'not sent across origins, so such a page uses a bearer token. Unset: no CORS header at all, and a browser lets ' +
      "no other origin's page read svc's answers",
    parse: optional(origins),
  }),
  setting({
    key: 'pluginDevOrigins',
    env: 'SVC_PLUGIN_DEV_ORIGINS',
    arg: 'A,B',
    unset: 'off',
    list: ',',
    help: 'dev servers plugin UIs may load from (dev only)',
    docs:
      "comma-separated origins of plugin authors' Vite dev servers (`http://localhost:5173`): the console loads a " +
      "plugin's UI from there, with hot reload, while `svc plugin dev --ui URL` runs, and its content security " +
      'policy lets scripts, styles and the reload socket come from them. For development only: unset (the default), ' +
      'the console loads built bundles from svc alone',
    parse: optional(origins),
  }),
  setting({
    key: 'trustProxy',
    env: 'SVC_TRUST_PROXY',
    arg: 'true|N|CIDRS',
    default: 'false',
    list: ',',
    help: 'peers believed in X-Forwarded-For',
    docs:
      'which peers may name the client in `X-Forwarded-For`: `true` any, a number of proxy hops, or a ' +
      'comma-separated list of addresses and CIDRs',
    parse: trustProxy,
  }),
  setting({
    key: 'shutdownTimeout',
    field: 'shutdownTimeoutMs',
    env: 'SVC_SHUTDOWN_TIMEOUT',
    arg: 'TIME',
    default: '10s',
    help: 'a stop (SIGTERM) exits within this',
    docs:
      'how long a graceful stop (SIGTERM, Ctrl-C) may take (`10s`, `1m`; a bare number is seconds): `/readyz` ' +
      'answers 503 at once, new requests get 503 with `Retry-After`, watches end with a last bookmark, the requests ' +
      'in flight finish for up to this less 2 s (at least half of it), then what is left is cut and the process ' +
      'exits within this time (see [Stopping](#stopping))',
    parse: duration,
  }),
] as const;
