import { parse as parseQueryString } from 'fast-querystring';

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
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose.
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Anything but visible ASCII, and `#`: refused in a raw target (see below). */
const NOT_IN_TARGET = /[^\u0021-\u0022\u0024-\u007e]/;
/** A path that is already canonical: no `%`, no empty segment, no trailing `/`, no dot segment. */
const CANONICAL_PATH = /^(?:\/(?!\.\.?(?:\/|$))[^/%]+)+$/;

/**
 * Parses a request target as it came off the wire (`request.url` before any rewriting). `host` is the request's Host
 * header: an absolute-form target is accepted only for that host. Every request runs this, so a canonical path and
 * a query without `%` take fast paths that split and compare but decode nothing.
 */
export function parseRequestTarget(raw: string, host?: string): TargetResult {
  const bad = NOT_IN_TARGET.exec(raw);
  if (bad) {
    // Only visible ASCII may stand in a target; everything else must be percent-encoded. `#` never reaches a server
    // in a well-formed request, and the parts of this stack disagree on where it ends the path.
    if (bad[0] === '#') return refuse('the request target contains "#": a fragment is never sent to a server');
    return refuse(`the request target contains the raw character ${describe(bad[0].charCodeAt(0))}`);
  }
  let target = raw;
  if (raw.charCodeAt(0) !== 0x2f /* / */) {
    const absolute = ABSOLUTE_FORM.exec(raw);
    if (!absolute) return refuse('the request target must be a path starting with "/"');
    const authority = absolute[2]!.toLowerCase();
    if (host === undefined || authority !== host.toLowerCase()) {
      return refuse(
        `the absolute-form request target names host "${absolute[2]}", not this server (${host ?? 'no Host header'})`,
      );
    }
    target = raw.slice(absolute[0].length) || '/';
    if (target.startsWith('?')) target = `/${target}`;
  }

  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? '' : target.slice(q + 1);
  let segments: string[];
  let path: string;
  let routePath: string;
  if (CANONICAL_PATH.test(rawPath)) {
    segments = rawPath.slice(1).split('/');
    path = routePath = rawPath;
  } else {
    segments = [];
    for (const piece of rawPath.split('/')) {
      if (piece === '') continue;
      const segment = decodeSegment(piece);
      if (typeof segment !== 'string') return segment;
      segments.push(segment);
    }
    path = `/${segments.join('/')}`;
    routePath = `/${segments.map(encodeURIComponent).join('/')}`;
  }
  if (search.includes('%')) {
    if (MALFORMED_PERCENT.test(search))
      return refuse('the query string has a "%" that does not start a percent-encoded byte');
    try {
      decodeURIComponent(search);
    } catch {
      return refuse('the query string is not valid percent-encoded UTF-8');
    }
  }
  return { ok: true, target: { segments, path, routePath, search, query: parseQuery(search) } };
}

/**
 * The query-string parser used for every request (the HTTP framework's own `request.query` included): Fastify's own
 * default, so repeated keys become arrays, `+` is a space, and the result has no prototype.
 */
export function parseQuery(search: string): Record<string, string | string[]> {
  return parseQueryString(search) as Record<string, string | string[]>;
}

function decodeSegment(piece: string): string | { ok: false; problem: string } {
  if (MALFORMED_PERCENT.test(piece))
    return refuse(`the path segment "${piece}" has a "%" that does not start a percent-encoded byte`);
  let segment: string;
  try {
    segment = decodeURIComponent(piece);
  } catch {
    return refuse(`the path segment "${piece}" is not valid percent-encoded UTF-8`);
  }
  if (segment.includes('/'))
    return refuse(`the path segment "${piece}" encodes a "/", which would read as two segments`);
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
