/**
 * `GET /apis/audit.svc.run/v1alpha1/events` (docs/api.md "Audit"): the stored events, newest first, filtered by
 * `user`, `verb`, `resource`, `name`, `since` and `until` (RFC 3339), `limit` at a time (1–1,000, default 100), with
 * `continue` for the next page, as an `audit.k8s.io/v1` EventList. Who may read it: a role allowing `list` on
 * `events` in `audit.svc.run` (the template `role-template-view-audit`), and super administrators.
 */
import { AUDIT_EVENTS_PATH, badRequest } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { AuditCursor, AuditQuery, AuditStore } from '../store/audit-store.js';

export { AUDIT_EVENTS_PATH };

export function auditRoutes(store: AuditStore): DynamicRoute<HttpContext>[] {
  return [
    {
      method: 'GET',
      path: AUDIT_EVENTS_PATH,
      owner: 'core',
      doc: { summary: 'Audit events, newest first (user, verb, resource, name, since, until, limit, continue)' },
      async handler({ request, reply }) {
        const query = auditQueryOf(request.target.query);
        const page = await store.query(query);
        const next = page.next ? Buffer.from(JSON.stringify(page.next)).toString('base64url') : undefined;
        const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":${JSON.stringify(
          next ? { continue: next } : {},
        )},"items":[${page.events.join(',')}]}`;
        return reply.type(JSON_TYPE).send(body);
      },
    },
  ];
}

/** The query parameters read into a store query; a bad one is a 400 naming it. Pure. */
export function auditQueryOf(params: Record<string, unknown>): AuditQuery {
  const one = (name: string): string | undefined => {
    const value = params[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '')
      throw badRequest(`the query parameter ${name} must be given once, not empty`);
    return value;
  };
  const query: AuditQuery = { limit: 100 };
  const user = one('user');
  if (user !== undefined) query.username = user;
  for (const name of ['verb', 'resource', 'name'] as const) {
    const value = one(name);
    if (value !== undefined) query[name] = value;
  }
  for (const name of ['since', 'until'] as const) {
    const value = one(name);
    if (value === undefined) continue;
    const time = Date.parse(value);
    if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(time)) {
      throw badRequest(
        `the query parameter ${name} must be an RFC 3339 time such as 2026-11-26T10:00:00Z, not "${value}"`,
      );
    }
    query[name] = new Date(time).toISOString();
  }
  const limit = one('limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
      throw badRequest(`the query parameter limit must be a whole number from 1 to 1000, not "${limit}"`);
    }
    query.limit = Number(limit);
  }
  const after = one('continue');
  if (after !== undefined) query.after = cursorOf(after);
  return query;
}

function cursorOf(token: string): AuditCursor {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString()) as AuditCursor;
    if (typeof value.time === 'string' && Number.isSafeInteger(value.id)) return { time: value.time, id: value.id };
  } catch {
    // Falls through to the refusal.
  }
  throw badRequest('the query parameter continue is not one this server gave: ask for the first page again');
}
