/**
 * The console's live signal (docs/api.md "Console events"): one stream per signed-in user, newline-delimited JSON as a
 * `?watch=true` watch (api/ndjson-stream.ts), saying when the caller's UI permissions changed (a role, binding or role
 * template was written) and when the set of plugin UIs changed (a plugin with a UI started or stopped), so the console
 * reloads the session or the plugin UIs. Like a watch, it ends when its credential does (authn/credential-follower.ts):
 * sign-out, session expiry, a revoked token, a disabled user, a changed password under HTTP Basic (an ERROR event with
 * a 401 first).
 */
import { CONSOLE_API, tooManyRequests, unauthorized, type WatchStatus } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext } from '../api/http-context.js';
import { type NdjsonStream, openNdjsonStream } from '../api/ndjson-stream.js';
import type { CredentialFollower } from '../authn/credential-follower.js';
import type { Principal } from '../authz/principal.js';
import { type PerKeyLimit, streamOwner, tooManyStreamsMessage } from '../util/per-key-limit.js';

export type ConsoleEvent =
  | { type: 'READY'; uiPermissions: string[] }
  | { type: 'PERMISSIONS'; uiPermissions: string[] }
  | { type: 'PLUGIN_UIS' }
  | { type: 'PING' }
  | {
      type: 'ERROR';
      object: WatchStatus;
    };

export interface ConsoleEventDeps {
  /** Tells when the stream's credential ends, and when access may have changed (a role, binding or template). */
  credentials: Pick<CredentialFollower, 'follow'>;
  /** A user's UI permissions as `users/-/permissions` reports them (ui-permissions.ts). */
  uiPermissionsOf(username: string): string[];
  /** Told when a plugin with a UI starts or stops. */
  pluginUis: { onChange(listener: () => void): unknown };
  /** How often a PING keeps idle connections (and proxies) open; 25 s by default. */
  pingMs?: number;
  /** Open streams per caller, shared with watches; no limit without it. */
  streams?: PerKeyLimit;
}

const PATH = `${CONSOLE_API}/users/-/console-events`;

export class ConsoleEvents {
  /** Each open stream, with what ends it. */
  private readonly open = new Map<NdjsonStream, () => void>();

  constructor(private readonly deps: ConsoleEventDeps) {
    deps.pluginUis.onChange(() => {
      for (const stream of this.open.keys()) send(stream, { type: 'PLUGIN_UIS' });
    });
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
          this.start(principal.username, principal, openNdjsonStream(ctx.reply), release);
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
    for (const end of [...this.open.values()]) end();
  }

  private start(username: string, principal: Principal, stream: NdjsonStream, release: () => void): void {
    let held = this.deps.uiPermissionsOf(username);
    const ping = setInterval(() => send(stream, { type: 'PING' }), this.deps.pingMs ?? 25_000);
    let stopFollowing = () => {};
    const cleanUp = () => {
      if (!this.open.delete(stream)) return;
      clearInterval(ping);
      stopFollowing();
      release();
    };
    this.open.set(stream, () => {
      stream.end();
      cleanUp();
    });
    stream.onClose(cleanUp);
    send(stream, { type: 'READY', uiPermissions: held });
    stopFollowing = this.deps.credentials.follow(principal, {
      ended: (error) => {
        stream.fail(error);
        cleanUp();
      },
      changed: () => {
        const now = this.deps.uiPermissionsOf(username);
        if (now.join('\n') === held.join('\n')) return;
        held = now;
        send(stream, { type: 'PERMISSIONS', uiPermissions: now });
      },
    });
  }
}

function send(stream: NdjsonStream, event: ConsoleEvent): void {
  stream.sendJson(event);
}
