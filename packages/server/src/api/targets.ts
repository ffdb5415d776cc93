import type { IncomingMessage } from 'node:http';
import { badRequest } from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';
import { parseQuery, parseRequestTarget, type RequestTarget } from '../authz/request-target.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request target, parsed once before routing; the gate, the router and every handler read this. */
    readonly target: RequestTarget;
  }
}

const TARGET = Symbol('svc.target');
const UNPARSABLE = Symbol('svc.unparsable');

type RawRequest = IncomingMessage & { [TARGET]?: RequestTarget; [UNPARSABLE]?: string };

/** Where a target that cannot be read one way only is routed; the first hook answers it with 400 (refuseUnparsable). */
const UNPARSABLE_PATH = '/';
const EMPTY_TARGET: RequestTarget = Object.freeze({ segments: [], path: '/', routePath: '/', search: '', query: {} });

/**
 * The HTTP framework's URL rewrite, run before it routes: parses the target once, keeps the result on the raw request,
 * and hands the framework the canonical form, so Fastify's routes, the runtime router and the gate see one path.
 */
export function rewriteToTarget(req: IncomingMessage): string {
  const raw = req as RawRequest;
  const parsed = parseRequestTarget(req.url ?? '/', req.headers.host);
  if (!parsed.ok) {
    raw[UNPARSABLE] = parsed.problem;
    raw[TARGET] = EMPTY_TARGET;
    return UNPARSABLE_PATH;
  }
  const { target } = parsed;
  raw[TARGET] = target;
  lastQuery = target;
  // Already canonical (most requests): the framework keeps the very string it was given.
  if (target.routePath.length + (target.search === '' ? 0 : target.search.length + 1) === req.url?.length)
    return req.url;
  return target.search === '' ? target.routePath : `${target.routePath}?${target.search}`;
}

/**
 * Fastify's query-string parser. It runs synchronously right after `rewriteToTarget` for the same request, so it hands
 * back the query already parsed there instead of parsing the string a second time.
 */
export function querystringParser(search: string): Record<string, string | string[]> {
  const last = lastQuery;
  lastQuery = undefined;
  return last && last.search === search ? last.query : parseQuery(search);
}
let lastQuery: RequestTarget | undefined;

/** The getter behind `request.target`. */
export function targetOf(this: FastifyRequest): RequestTarget {
  return (this.raw as RawRequest)[TARGET] ?? EMPTY_TARGET;
}

/** A target that could be read more than one way is a 400 before anything else runs (app.ts's first checks). */
export function unparsableTarget(request: FastifyRequest): Error | undefined {
  const problem = (request.raw as RawRequest)[UNPARSABLE];
  return problem === undefined ? undefined : badRequest(problem);
}
