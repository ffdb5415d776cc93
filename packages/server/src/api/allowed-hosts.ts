/**
 * Which `Host` headers svc answers (docs/api.md "Settings", SVC_ALLOWED_HOSTS). A web page whose name an attacker
 * re-points at 127.0.0.1 (DNS rebinding) reaches a server on this machine with its own name in `Host`: refusing names
 * the server was not set up for keeps such a page away from the anonymous routes (and from a session's cookies, which
 * the browser would not send it anyway). Loopback names are always accepted: only this machine can send them.
 */
import { isIP } from 'node:net';
import { badRequest } from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';

export interface HostSettings {
  /** The address svc listens on (SVC_HOST). */
  listenHost: string;
  /** Names the made certificate covers (SVC_TLS_HOSTS). */
  tlsHosts: readonly string[];
  /** SVC_ALLOWED_HOSTS: names and addresses, `*` for any; undefined when not set. */
  allowedHosts?: readonly string[];
}

/**
 * Whether a Host header is accepted, or undefined when any is. Unset, on a loopback address: loopback names and
 * addresses, the listen host and the TLS host names; on any other address: any. Set: the names it lists besides those.
 */
export function hostPolicy(settings: HostSettings): ((host: string | undefined) => boolean) | undefined {
  const { allowedHosts } = settings;
  if (allowedHosts?.includes('*')) return undefined;
  if (allowedHosts === undefined && !isLoopback(hostName(settings.listenHost))) return undefined;
  const names = new Set([settings.listenHost, ...settings.tlsHosts, ...(allowedHosts ?? [])].map((h) => hostName(h)));
  // Every request asks, nearly always with the Host the one before it had: that answer is kept.
  let lastAccepted: string | undefined;
  return (host) => {
    if (host === undefined) return false;
    if (host === lastAccepted) return true;
    const name = hostName(host, true);
    const accepted = isLoopback(name) || names.has(name);
    if (accepted) lastAccepted = host;
    return accepted;
  };
}

/** The refusal of a Host the policy does not accept (app.ts's first checks): a 400 naming the setting. */
export function refusedHost(
  accepts: ((host: string | undefined) => boolean) | undefined,
  request: FastifyRequest,
): Error | undefined {
  const host = request.headers.host;
  if (accepts === undefined || accepts(host)) return undefined;
  const named = host === undefined ? 'no Host header' : `the Host header "${host}"`;
  return badRequest(
    `${named} is not a name this server answers to; allow it with SVC_ALLOWED_HOSTS (--allowed-hosts), ` +
      'a comma-separated list of names and addresses (* allows any)',
  );
}

/** A host name or address lowercased, without brackets, trailing dot or (from a Host header) port. */
export function hostName(value: string, withPort = false): string {
  let name = value.trim().toLowerCase();
  if (withPort) name = name.startsWith('[') ? name.slice(0, name.indexOf(']') + 1) : name.replace(/:\d*$/, '');
  return name.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

function isLoopback(name: string): boolean {
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}
