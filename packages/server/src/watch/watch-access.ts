/**
 * Ends watches whose caller has lost the access the watch was opened with (docs/access-control.md, "When watches
 * end"). Each watch is followed with its caller's credential (authn/credential-follower.ts, reached through the port
 * below): when the credential ends, the watch ends with 401; when access may have changed (a role, binding, user or
 * token change), the watch is authorized again, as the gate would, and ends with 403 when no role allows `watch` any
 * more (401 for an anonymous watch, as the gate answers). Delivery itself checks nothing, so watching costs the same
 * however many watchers there are.
 *
 * A watch that may no longer continue gets an ERROR event carrying a status, as a 410 does, and ends.
 */
import type { ApiError } from '@svc/plugin-api';
import type { Decision } from '../authz/authorizer.js';
import type { Principal } from '../authz/principal.js';
import type { Attributes } from '../authz/rules.js';
import { pluginOf } from '../objects/owner.js';
import type { ServedModel } from '../registry/model-registry.js';
import { statusObject, statusOfError, type WatchStatus } from './events.js';
import type { Watcher } from './watcher.js';

/** What access is decided and followed with: the role service, and the credential follower. */
export interface WatchAccessDeps {
  roles: { authorize(principal: Principal, attributes: Attributes): Decision };
  /** Tells when the credential ends (then stops following) or access may have changed; the result stops following. */
  credentials: {
    follow(principal: Principal, subscriber: { ended(error: ApiError): void; changed(): void }): () => void;
  };
}

export class WatchAccess {
  constructor(private readonly deps: WatchAccessDeps) {}

  /**
   * Ties `watcher` to its caller until it ends. Checked at once too: access may have changed between the gate's
   * decision and now (a WebSocket upgrade, for instance).
   */
  follow(watcher: Watcher, principal: Principal): void {
    const attributes = watchAttributes(watcher.served);
    const check = () => {
      const status = this.verdict(principal, attributes);
      if (status) watcher.fail(status);
    };
    const stop = this.deps.credentials.follow(principal, {
      ended: (error) => watcher.fail(statusOfError(error)),
      changed: check,
    });
    watcher.onEnd(stop);
    // Ended already (the credential was gone): the listener above will not run.
    if (watcher.isEnded) stop();
    else check();
  }

  /** Why the watch may not go on, or undefined while its caller's roles allow it. */
  private verdict(principal: Principal, attributes: Attributes): WatchStatus | undefined {
    const decision = this.deps.roles.authorize(principal, attributes);
    if (decision.allowed) return undefined;
    if (principal.username === undefined)
      return statusObject(401, 'Unauthorized', `sign in to watch this: ${decision.reason}`);
    return statusObject(403, 'Forbidden', `user "${principal.username}" may no longer watch this: ${decision.reason}`);
  }
}

/**
 * The attributes the gate authorized the watch with: `watch` on the model's collection. Derived from the model
 * served, which is the one the request's path named; the plugin is filled in as the gate's attribute resolver does.
 */
export function watchAttributes(served: ServedModel): Attributes {
  const { group, version, plural } = served.model;
  const attributes: Attributes = {
    isResourceRequest: true,
    verb: 'watch',
    path: group === '' ? `/api/${version}/${plural}` : `/apis/${group}/${version}/${plural}`,
    apiGroup: group,
    resource: plural,
    subresource: '',
    name: '',
  };
  const plugin = pluginOf(served.owner);
  if (plugin !== undefined) attributes.plugin = plugin;
  return attributes;
}
