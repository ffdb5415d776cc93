import { parse as parseQueryString } from 'node:querystring';

/**
 * A request target (RFC 9112 §3.2) parsed once, before routing: the gate classifies this record and the router routes
 * on `routePath`, so both read the same request. Hand-written because the point is to have exactly one reading of
 * the target: Node's parser, find-my-way and the query-string parser each split and decode differently (`#`, `;`,
 * malformed percent-encoding), and a target they would read differently is refused instead of guessed at.
 */
export interface RequestTarget {
  /** Percent-decoded path segments; empty segments (`//`, a trailing `/`) are dropped. */
  segments: string[];
  /** `/` + the decoded segments: what non-resource rules match and messages show. */
  path: string;
  /** The path with each segment encoded again, for the router, which decodes it exactly once back to `segments`. */
  routePath: string;
  /** The raw query string after the first `?` (`''` when none). */
  search: string;
  /** The query, parsed once (repeated keys become arrays; no prototype). */
  query: Record<string, string | string[]>;
}

export type TargetResult = { ok: true; target: RequestTarget } | { ok: false; problem: string };

const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*):\/\/([^/?]*)/i;
const MALFORMED_PERCENT = /%(?![0-9a-f]{2})/i;
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Parses a request target as it came off the wire (`request.url` before any rewriting). `host` is the request's Host
 * header: an absolute-form target is accepted only for that host.
 */
export function parseRequestTarget(raw: string, host?: string): TargetResult {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    // Only visible ASCII may stand in a target; everything else must be percent-encoded. `#` never reaches a server
    // in a well-formed request, and the parts of this stack disagree on where it ends the path.
    if (code <= 0x20 || code >= 0x7f) return refuse(`the request target contains the raw character ${describe(code)}`);
    if (code === 0x23) return refuse('the request target contains "#": a fragment is never sent to a server');
  }
  let target = raw;
  const absolute = ABSOLUTE_FORM.exec(raw);
  if (absolute) {
    const authority = absolute[2]!.toLowerCase();
    if (host === undefined || authority !== host.toLowerCase()) {
      return refuse(`the absolute-form request target names host "${absolute[2]}", not this server (${host ?? 'no Host header'})`);
    }
    target = raw.slice(absolute[0].length) || '/';
    if (target.startsWith('?')) target = `/${target}`;
  }
  if (!target.startsWith('/')) return refuse('the request target must be a path starting with "/"');

  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? '' : target.slice(q + 1);
  const segments: string[] = [];
  for (const piece of rawPath.split('/')) {
    if (piece === '') continue;
    const segment = decodeSegment(piece);
    if (typeof segment !== 'string') return segment;
    segments.push(segment);
  }
  if (MALFORMED_PERCENT.test(search)) return refuse('the query string has a "%" that does not start a percent-encoded byte');
  try {
    decodeURIComponent(search);
  } catch {
    return refuse('the query string is not valid percent-encoded UTF-8');
  }
  const query = parseQuery(search);
  const path = `/${segments.join('/')}`;
  const routePath = `/${segments.map(encodeURIComponent).join('/')}`;
  return { ok: true, target: { segments, path, routePath, search, query } };
}

/** The query-string parser used for every request (the HTTP framework's own `request.query` included). */
export function parseQuery(search: string): Record<string, string | string[]> {
  if (search === '') return Object.create(null) as Record<string, string | string[]>;
  return parseQueryString(search) as Record<string, string | string[]>;
}

function decodeSegment(piece: string): string | { ok: false; problem: string } {
  if (MALFORMED_PERCENT.test(piece)) return refuse(`the path segment "${piece}" has a "%" that does not start a percent-encoded byte`);
  let segment: string;
  try {
    segment = decodeURIComponent(piece);
  } catch {
    return refuse(`the path segment "${piece}" is not valid percent-encoded UTF-8`);
  }
  if (segment.includes('/')) return refuse(`the path segment "${piece}" encodes a "/", which would read as two segments`);
  if (CONTROL.test(segment)) return refuse(`the path segment "${piece}" encodes a control character`);
  if (isDotSegment(segment)) return refuse('the path contains a "." or ".." segment; send the resolved path');
  return segment;
}

/** `.` or `..`, also percent-encoded: a path segment that no parsed target holds and no rule may name. */
export function isDotSegment(segment: string): boolean {
  return /^(?:\.|%2e){1,2}$/i.test(segment);
}

function refuse(problem: string): { ok: false; problem: string } {
  return { ok: false, problem };
}

function describe(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
