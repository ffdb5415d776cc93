/**
 * What never reaches an audit event (docs/access-control.md "Audit"): passwords, tokens and other secrets in request
 * and response bodies (a provider's logout URL too: it carries the session's ID token). Keys are matched by name wherever they are, and the annotation a token's secret is answered in
 * (`security.svc.run/access-token`) is replaced too. Cookies and `Authorization` are never read into an event at all.
 * Pure; copies, never changes, its input.
 */
import { ACCESS_TOKEN_ANNOTATION } from '@svc/plugin-api';

const SECRET_KEY =
  /^(password|oldpassword|newpassword|currentpassword|token|accesstoken|refreshtoken|idtoken|secret|clientsecret|privatekey|key|credentials?|endsessionurl)$/i;
const SECRET_ANNOTATION = ACCESS_TOKEN_ANNOTATION;
export const REDACTED = '******';

export function redacted(value: unknown, depth = 0): unknown {
  // Bodies are at most 100 levels deep (objects/json-limits.ts); deeper than that is not a body svc accepted.
  if (depth > 100 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redacted(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEY.test(key) || key === SECRET_ANNOTATION) copy[key] = REDACTED;
    else copy[key] = redacted(item, depth + 1);
  }
  return copy;
}
