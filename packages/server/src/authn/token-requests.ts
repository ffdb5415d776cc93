import { apisPath, type FieldError, forbidden, invalid, USER_SECURITY_GROUP } from '@svc/plugin-api';
import type { AdmissionRequest } from '../registry/admission.js';
import type { TokenSpec } from './models.js';

/** The body of `POST …/personalaccesstokens`, checked: `{"metadata"?: {"name"?}, "spec": {"name", "roles", …}}`. */
export interface TokenRequest {
  /** The object's name when the client chose one; otherwise one is generated. */
  name?: string;
  spec: Omit<TokenSpec, 'username'>;
}

export function readTokenRequest(body: unknown, now: () => number): TokenRequest {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });
  if (!isObject(body)) throw invalid('the body must be a JSON object {"spec": {"name", "roles", "expiresAt"?}}');
  const spec = body.spec;
  if (!isObject(spec)) throw invalid('spec is required', [{ path: '/spec', message: 'is required' }]);
  if (typeof spec.name !== 'string' || spec.name.trim() === '') fail('/spec/name', 'is required');
  const roles = spec.roles ?? [];
  if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string' || r === '')) {
    fail('/spec/roles', 'must be an array of role names');
  }
  let expiresAt: string | undefined;
  if (spec.expiresAt !== undefined && spec.expiresAt !== null) {
    const at = typeof spec.expiresAt === 'string' ? Date.parse(spec.expiresAt) : NaN;
    if (Number.isNaN(at)) fail('/spec/expiresAt', 'must be an RFC 3339 timestamp');
    else if (at <= now()) fail('/spec/expiresAt', 'must be in the future');
    else expiresAt = new Date(at).toISOString();
  }
  if (spec.description !== undefined && typeof spec.description !== 'string')
    fail('/spec/description', 'must be a string');
  const metadata = body.metadata;
  const name = isObject(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined;
  if (errors.length > 0) {
    throw invalid(`the token request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  }
  const result: TokenRequest = { spec: { name: (spec.name as string).trim(), roles: [...new Set(roles as string[])] } };
  if (expiresAt) result.spec.expiresAt = expiresAt;
  if (typeof spec.description === 'string') result.spec.description = spec.description;
  if (name) result.name = name;
  return result;
}

/**
 * Admission for PersonalAccessToken objects, whoever writes them (for instance a super administrator through the
 * generated API): a token object is only made together with its secret, by the service; what a token may do, whose
 * it is and when it expires never change; a revoked token stays revoked.
 */
export function admitTokenWrite(request: AdmissionRequest): void {
  if (request.actor.kind === 'system' || request.operation === 'delete') return;
  if (request.operation === 'create') {
    throw forbidden(`create personal access tokens with POST ${apisPath(USER_SECURITY_GROUP)}/personalaccesstokens`);
  }
  const before = (request.prevObject?.spec ?? {}) as Partial<TokenSpec>;
  const after = (request.object.spec ?? {}) as Partial<TokenSpec>;
  for (const field of ['username', 'roles', 'expiresAt', 'name'] as const) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) {
      throw invalid(`spec.${field} of a personal access token cannot change`, [
        { path: `/spec/${field}`, message: 'cannot change' },
      ]);
    }
  }
  if (before.revoked === true && after.revoked !== true) {
    throw invalid('a revoked personal access token cannot be restored', [
      { path: '/spec/revoked', message: 'must stay true' },
    ]);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
