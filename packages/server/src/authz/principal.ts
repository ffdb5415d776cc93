/**
 * Who is making a request, as authentication settles it before authorization runs. This is the seam between the two:
 * authentication produces it from credentials; authorization reads only it and the request's classification.
 */
export interface Principal {
  /** The user's name; undefined for an anonymous visitor. */
  username: string | undefined;
  /** How the caller proved who they are. */
  via: 'anonymous' | 'session' | 'token' | 'basic' | 'oidc';
  /**
   * The groups the caller is in: an OIDC token's groups claim (prefixed), or the groups an administrator gave a local
   * user. RoleBindings naming one of them apply to the caller.
   */
  groups?: readonly string[];
  /** When the credential ends (epoch ms); set for an OIDC token, whose `exp` it is. */
  expiresAtMs?: number;
  /**
   * A personal access token acts with a subset of its owner's roles: when set, only these roles count (and only those
   * the user still holds).
   */
  restrictedToRoles?: readonly string[];
  /**
   * The session's id, for logout and password changes; set only when `via` is `session`. It is the digest the store
   * keeps the session under, never the cookie's secret value, so it is safe to pass around.
   */
  sessionId?: string;
  /** The token's name, when `via` is `token`. */
  tokenName?: string;
}

export const ANONYMOUS: Principal = Object.freeze({ username: undefined, via: 'anonymous' });
