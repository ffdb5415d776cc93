/** Making a personal access token for the signed-in user: `svc login`, `svc token create` and `svc kubeconfig`. */
import {
  ACCESS_TOKEN_ANNOTATION,
  ANONYMOUS_ROLE,
  AUTHENTICATED_ROLE,
  apisPath,
  CONSOLE_API,
  USER_SECURITY_GROUP,
} from '@svc/plugin-api';
import { table } from './output.js';
import { CommandError } from './report.js';

export const TOKENS = `${apisPath(USER_SECURITY_GROUP)}/personalaccesstokens`;
const PERMISSIONS = `${CONSOLE_API}/users/-/permissions`;

/** One JSON request as the caller, answering the parsed body (an SvcClient's request, adapted). */
export type Requester = (method: string, path: string, body?: unknown) => Promise<unknown>;

export interface MadeToken {
  /** The token object's name (to revoke or delete it). */
  name: string;
  /** The name the user gave it (`spec.name`). */
  displayName: string;
  /** The secret, answered this once. */
  secret: string;
  /** Whose token it is, as the server says. */
  username: string;
}

/**
 * Creates a token named `name`, holding `roles` or, when none are given, every role the caller is bound to (the
 * built-in `anonymous` and `authenticated` come with any sign-in and are not granted).
 */
export async function createPersonalToken(
  request: Requester,
  options: { name: string; expiresAt?: string; roles?: readonly string[] },
): Promise<MadeToken> {
  const permissions = (await request('GET', PERMISSIONS)) as { username?: string; roles?: string[] };
  const roles = options.roles?.length
    ? [...options.roles]
    : (permissions.roles ?? []).filter((r) => r !== ANONYMOUS_ROLE && r !== AUTHENTICATED_ROLE);
  const spec: Record<string, unknown> = { name: options.name, roles };
  if (options.expiresAt) spec.expiresAt = options.expiresAt;
  const created = (await request('POST', TOKENS, { spec })) as TokenObject;
  const secret = created.metadata.annotations?.[ACCESS_TOKEN_ANNOTATION];
  if (!secret) throw new CommandError('the server created a token but did not answer its secret');
  return { name: created.metadata.name, displayName: created.spec.name, secret, username: permissions.username ?? '' };
}

/** A personal access token as the server answers it (its secret only in the create's answer). */
export interface TokenObject {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { name: string; roles?: string[]; expiresAt?: string; revoked?: boolean };
}

/** `svc token list`'s table, newest tokens as the server orders them. Pure. */
export function tokenTable(tokens: readonly TokenObject[]): string {
  if (tokens.length === 0) return 'No tokens.';
  const rows = tokens.map((t) => [
    t.spec.name,
    t.metadata.name,
    (t.spec.roles ?? []).join(',') || '<none>',
    t.spec.expiresAt ?? 'never',
    t.spec.revoked ? 'yes' : 'no',
  ]);
  return table([['NAME', 'ID', 'ROLES', 'EXPIRES', 'REVOKED'], ...rows]);
}

/** Where a token goes to be deleted (`svc logout`). */
export const tokenPath = (name: string) => `${TOKENS}/${encodeURIComponent(name)}`;
