/**
 * The console's live signal (docs/api.md "Console events"): one stream per signed-in user, newline-delimited JSON as a
 * `?watch=true` watch, saying when the caller's UI permissions changed (a role, binding or role template was written)
 * and when the set of plugin UIs changed (a plugin with a UI started or stopped), so the console reloads the session or
 * the plugin UIs. Like a watch, it ends when its credential does: sign-out, session expiry, a revoked token, a disabled
 * user (an ERROR event with a 401 first).
 */
import type { ServerResponse } from 'node:http';
import { tooManyRequests, unauthorized } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext } from '../api/http-context.js';
import type { Principal } from '../authz/principal.js';
import { type PerKeyLimit, streamOwner, tooManyStreamsMessage } from '../util/per-key-limit.js';
import type { RoleService } from './role-service.js';

export type ConsoleEvent =
  | { type: 'READY'; uiPermissions: string[] }
  | { type: 'PERMISSIONS'; uiPermissions: string[] }
  | { type: 'PLUGIN_UIS' }
  | { type: 'PING' }
  | {
      type: 'ERROR';
      object: { kind: 'Status'; apiVersion: 'v1'; status: 'Failure'; code: number; reason: string; message: string };
    };

export interface ConsoleEventDeps {
  /** Told when any role, binding or template changes. */
  roles: Pick<RoleService, 'onChange'>;
  /** A user's UI permissions as `users/-/permissions` reports them (ui-permissions.ts). */
  uiPermissionsOf(username: string): string[];
  sessions: { expiryOf(key: string): Promise<number | undefined>; onEnded(listener: (key: string) => void): unknown };
  users: { isActive(username: string): boolean; onLostAccess(listener: (username: string) => void): unknown };
  tokens: {
    check(name: string): { valid: boolean; expiresAtMs: number | undefined };
    onChanged(listener: (name: string, username: string) => void): unknown;
  };
  /** Told when a plugin with a UI starts or stops. */
  pluginUis: { onChange(listener: () => void): unknown };
  /** How often a PING keeps idle connections (and proxies) open; 25 s by default. */
  pingMs?: number;
  /** Open streams per caller, shared with watches; no limit without it. */
  streams?: PerKeyLimit;
}

interface Stream {
  principal: Principal & { username: string };
  held: string;
  send(event: ConsoleEvent): void;
  end(message?: string): void;
}

const PATH = '/apis/api.console.svc.run/v1alpha1/users/-/console-events';
/** setTimeout's longest delay; a later expiry is looked at again then. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class ConsoleEvents {
  private readonly open = new Set<Stream>();

  constructor(private readonly deps: ConsoleEventDeps) {
    deps.roles.onChange(() => {
      for (const stream of this.open) {
        const now = deps.uiPermissionsOf(stream.principal.username);
        if (now.join('\n') === stream.held) continue;
        stream.held = now.join('\n');
        stream.send({ type: 'PERMISSIONS', uiPermissions: now });
      }
    });
    deps.pluginUis.onChange(() => {
      for (const stream of this.open) stream.send({ type: 'PLUGIN_UIS' });
    });
    const endWhere = (test: (s: Stream) => boolean, message: string) => {
      for (const stream of [...this.open]) if (test(stream)) stream.end(message);
    };
    deps.sessions.onEnded((key) =>
      endWhere((s) => s.principal.sessionId === key, 'the session has ended; sign in again'),
    );
    deps.users.onLostAccess((username) =>
      endWhere((s) => s.principal.username === username, `user "${username}" may no longer sign in`),
    );
    deps.tokens.onChanged((name) =>
      endWhere((s) => s.principal.tokenName === name && !deps.tokens.check(name).valid, 'the token is no longer valid'),
    );
  }

  /** How many streams are open (for tests). */
  get size(): number {
    return this.open.size;
  }

  routes(): DynamicRoute<HttpContext>[] {
    return [
      {
        method: 'GET',
        path: PATH,
        owner: 'core',
        doc: { summary: "The console's live signal: your UI permissions or the plugin UIs changed (NDJSON)" },
        handler: async (ctx) => {
          const principal = callerOf(ctx.request);
          if (principal.username === undefined) throw unauthorized('sign in to follow console events');
          const release = this.reserve(streamOwner(principal.username, ctx.request.ip));
          ctx.reply.hijack();
          this.start({ ...principal, username: principal.username }, ctx.reply.raw, headersOf(ctx), release);
          return ctx.reply;
        },
      },
    ];
  }

  /** One of `owner`'s open streams (counted with their watches), or a 429 naming the limit. */
  private reserve(owner: string): () => void {
    const { streams } = this.deps;
    if (!streams) return () => undefined;
    const release = streams.take(owner);
    if (release) return release;
    throw tooManyRequests(tooManyStreamsMessage(owner, streams.max), 5);
  }

  /** Ends every stream (the server is closing). */
  endAll(): void {
    for (const stream of [...this.open]) stream.end();
  }

  private start(
    principal: Stream['principal'],
    raw: ServerResponse,
    headers: Record<string, string>,
    release: () => void,
  ): void {
    raw.writeHead(200, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    let timer: NodeJS.Timeout | undefined;
    const ping = setInterval(() => stream.send({ type: 'PING' }), this.deps.pingMs ?? 25_000);
    const held = this.deps.uiPermissionsOf(principal.username);
    const stream: Stream = {
      principal,
      held: held.join('\n'),
      send: (event) => {
        if (!raw.writableEnded && !raw.destroyed) raw.write(`${JSON.stringify(event)}\n`);
      },
      end: (message) => {
        if (message) stream.send({ type: 'ERROR', object: unauthorizedStatus(message) });
        if (!raw.writableEnded) raw.end();
        cleanUp();
      },
    };
    const cleanUp = () => {
      clearInterval(ping);
      clearTimeout(timer);
      this.open.delete(stream);
      release();
    };
    raw.once('close', cleanUp);
    this.open.add(stream);
    stream.send({ type: 'READY', uiPermissions: held });
    // A session's idle timeout or maximum age, a token's expiry: looked at when due, then again if pushed later.
    const armExpiry = () => {
      const due =
        principal.via === 'session' && principal.sessionId !== undefined
          ? this.deps.sessions.expiryOf(principal.sessionId)
          : Promise.resolve(principal.tokenName ? this.deps.tokens.check(principal.tokenName).expiresAtMs : undefined);
      due.then(
        (at) => {
          if (!this.open.has(stream)) return;
          if (principal.via === 'session' && at === undefined) return stream.end('the session has ended or expired');
          if (at === undefined) return;
          if (at <= Date.now()) return stream.end('the credential has expired');
          timer = setTimeout(armExpiry, Math.min(at - Date.now(), MAX_DELAY_MS));
        },
        () => stream.end('the session could not be checked'),
      );
    };
    if (principal.via === 'session' || principal.via === 'token') armExpiry();
  }
}

function unauthorizedStatus(message: string) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 401, reason: 'Unauthorized', message } as const;
}

/** Headers hooks set on the reply before the handler ran (the request id): hijacking skips Fastify's sending them. */
function headersOf(ctx: HttpContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.reply.getHeaders())) {
    if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
  }
  return headers;
}
