/**
 * Records each request the policy audits, when its answer is sent (an `onSend` hook: the status and, for
 * RequestResponse, the body are known there). Reads are left before anything is computed when the policy's first
 * rule sends every read to None (the default), so the request path pays nothing for them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../api/http-context.js';
import { classifyRequest } from '../authz/request-info.js';
import { buildEvent } from './build-event.js';
import type { AuditEvent } from './event.js';
import { levelFor, type Policy } from './policy.js';
import type { AuditSink } from './sinks.js';

const READS = ['get', 'list', 'watch', 'head'];

export function auditHook(policy: Policy, sinks: readonly AuditSink[], replica: string | undefined) {
  const first = policy.rules[0];
  const readsNeverAudited =
    first?.level === 'None' &&
    READS.every((verb) => first.verbs?.includes(verb)) &&
    !first.users &&
    !first.userGroups &&
    !first.resources &&
    !first.nonResourceURLs;
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (e: null, p: unknown) => void) => {
    const signIn = request.auditAsSignIn === true;
    if (readsNeverAudited && !signIn && (request.method === 'GET' || request.method === 'HEAD')) {
      return done(null, payload);
    }
    const principal = callerOf(request);
    // The gate's classification when it got that far (a refused Host, a failed sign-in: classified here).
    const classified =
      request.requestInfo ??
      classifyRequest({
        method: request.method,
        target: request.target,
        isWebSocket: request.headers.upgrade?.toLowerCase() === 'websocket',
      });
    const info = signIn ? { ...classified, verb: 'post' } : classified;
    const level = levelFor(policy, {
      username: principal.username ?? 'system:anonymous',
      groups:
        principal.username === undefined
          ? ['system:unauthenticated']
          : [...(principal.groups ?? []), 'system:authenticated'],
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
      path: info.path,
    });
    if (level === 'None') return done(null, payload);
    const event = buildEvent(level, {
      id: String(request.id),
      uri: request.url,
      // A create names its object in the body, as Kubernetes' audit records it.
      info: info.verb === 'create' && info.name === '' ? { ...info, name: bodyName(request.body) } : info,
      username: principal.username,
      groups: principal.groups,
      sourceIPs: sourceIPsOf(request),
      userAgent: request.headers['user-agent'],
      status: reply.statusCode,
      receivedAt: Date.now() - reply.elapsedTime,
      now: Date.now(),
      decision: request.decision,
      notes: request.auditNotes,
      replica,
      requestBody: request.body,
      responseBody: level === 'RequestResponse' ? jsonOf(payload) : undefined,
    });
    write(sinks, event);
    return done(null, payload);
  };
}

function bodyName(body: unknown): string {
  const name = (body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  return typeof name === 'string' ? name : '';
}

function write(sinks: readonly AuditSink[], event: AuditEvent): void {
  const json = JSON.stringify(event);
  for (const sink of sinks) sink.write(event, json);
}

/** The client as the proxies svc trusts name it, then the socket's peer when that differs. */
function sourceIPsOf(request: FastifyRequest): string[] {
  const peer = request.socket.remoteAddress;
  return peer && peer !== request.ip ? [request.ip, peer] : [request.ip];
}

/** An answer's JSON body, when it is one svc made (a string or a Buffer); streams are left out. */
function jsonOf(payload: unknown): unknown {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  try {
    return JSON.parse(payload.toString());
  } catch {
    return undefined;
  }
}
