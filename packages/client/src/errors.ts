import { type FieldError, KIND } from '@svc/plugin-api';

/** An RFC 9457 problem as svc answers it (docs/api.md "Errors"). */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

/**
 * A request svc refused (4xx) or failed (5xx), carrying its problem. Thrown by every client call; `status`,
 * `title`, `detail` and `errors` are the problem's, so `catch (e) { if (e.status === 409) … }` reads as the API does.
 */
export class SvcApiError extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[];

  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
    this.name = 'SvcApiError';
    this.status = problem.status;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
  }

  /** The detail, then one line per field error: what a person reads. */
  describe(): string {
    return [this.detail, ...this.errors.map((e) => `  ${e.path || '/'}: ${e.message}`)].join('\n');
  }
}

/**
 * The problem of a failed answer, whatever form it came in: problem+json, a Kubernetes `Status` (from a proxy or an
 * older server), or anything else (then the status line stands in). Pure.
 */
export function problemOf(status: number, statusText: string, body: unknown): Problem {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (typeof fields.detail === 'string' || typeof fields.title === 'string') {
    return {
      ...fields,
      status,
      title: String(fields.title ?? statusText),
      detail: String(fields.detail ?? fields.title),
      errors: Array.isArray(fields.errors) ? (fields.errors as FieldError[]) : undefined,
    };
  }
  if (fields.kind === KIND.Status) {
    const causes = (fields.details as { causes?: Array<{ field?: string; message?: string }> } | undefined)?.causes;
    return {
      status,
      title: String(fields.reason ?? statusText),
      detail: String(fields.message ?? statusText),
      errors: causes?.map((c) => ({ path: c.field ?? '', message: c.message ?? '' })),
    };
  }
  const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : `HTTP ${status}`;
  return { status, title: statusText || `HTTP ${status}`, detail: text };
}
