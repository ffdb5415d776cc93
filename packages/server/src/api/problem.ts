import type { Socket } from 'node:net';
import { type FieldError, isApiError, KIND, PROBLEM_TYPE_BASE } from '@svc/plugin-api';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** RFC 9457 problem details, the body of every error svc answers with (docs/api.md "Errors"). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: FieldError[];
  /** An extension member: the request's id, also in its `X-Request-Id` header and its log lines. */
  requestId?: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
};

const typeFor = (title: string) => `${PROBLEM_TYPE_BASE}${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;

/** Maps Fastify's own client errors (body parsing, limits, media types) to a status and a readable detail. */
function fastifyClientError(error: { code?: string; statusCode?: number; message: string }) {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: 'the request body is larger than the limit of 4 MiB' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? { status: 415, detail: `${error.message}; send application/json (a file upload: multipart/form-data)` }
        : { status: 400, detail: error.message };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, detail: 'the request body is empty; a JSON object is required' };
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        const detail =
          error instanceof SyntaxError || /JSON|token|prototype|constructor/i.test(error.message)
            ? `the request body is not valid JSON: ${error.message}`
            : error.message;
        return { status: error.statusCode, detail };
      }
      return undefined;
  }
}

export function toProblem(
  error: unknown,
  instance: string,
): { problem: Problem; headers?: Record<string, string>; reason?: string } {
  if (isApiError(error)) {
    const problem: Problem = {
      type: typeFor(error.title),
      title: error.title,
      status: error.status,
      detail: error.detail,
      instance,
    };
    if (error.errors?.length) problem.errors = error.errors;
    return { problem, headers: error.headers, reason: error.reason };
  }
  const client = fastifyClientError(error as { code?: string; statusCode?: number; message: string });
  if (client) {
    const title = TITLES[client.status] ?? 'Bad Request';
    return { problem: { type: typeFor(title), title, status: client.status, detail: client.detail, instance } };
  }
  if (lostConnection(error)) {
    const title = 'Service Unavailable';
    const detail = 'the database could not be reached; retry (on another replica)';
    return { problem: { type: typeFor(title), title, status: 503, detail, instance }, headers: { 'retry-after': '1' } };
  }
  return {
    problem: {
      type: typeFor('Internal Server Error'),
      title: 'Internal Server Error',
      status: 500,
      detail: 'the server failed to handle the request; the error has been logged',
      instance,
    },
  };
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, error: unknown): FastifyReply {
  const { problem, headers, reason } = toProblem(error, request.target.path);
  problem.requestId = request.id;
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  if (headers) reply.headers(headers);
  // Also set by the first hook; an error raised before the hooks run (a framework error) needs it here.
  reply.header('x-request-id', request.id);
  reply.code(problem.status);
  if (wantsKubernetesStatus(request.headers.accept)) {
    return reply.type('application/json').send(JSON.stringify(kubernetesStatus(problem, reason)));
  }
  return reply.type('application/problem+json').send(JSON.stringify(problem));
}

/**
 * Whether an error should be a Kubernetes `Status` rather than problem+json: the client accepts JSON (or a Kubernetes
 * media type) and neither problem+json nor a wildcard, as kubectl and @kubernetes/client-node do; they show a
 * Status's message, and nothing of a body they cannot read. Pure.
 */
export function wantsKubernetesStatus(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  if (types.some((type) => type === '*/*' || type === 'application/*' || type === 'application/problem+json'))
    return false;
  return types.some(
    (type) =>
      type === 'application/json' || type === 'application/yaml' || type === 'application/vnd.kubernetes.protobuf',
  );
}

/** The reasons Kubernetes clients know, for the statuses svc answers with. */
const STATUS_REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  431: 'BadRequest',
  500: 'InternalError',
  504: 'Timeout',
};

/** A problem as a Kubernetes `Status` (meta/v1), field errors as its causes. Pure. */
export function kubernetesStatus(problem: Problem, reason?: string) {
  const known: Record<string, string> = { Gone: 'Expired', PayloadTooLarge: 'RequestEntityTooLarge' };
  const status: Record<string, unknown> = {
    kind: KIND.Status,
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: problem.detail,
    reason: (reason && (known[reason] ?? reason)) || STATUS_REASONS[problem.status] || 'Unknown',
    code: problem.status,
  };
  // Not a member of meta/v1 Status: Kubernetes clients decode leniently and skip it; a person reading the body sees it.
  if (problem.requestId) status.requestId = problem.requestId;
  if (problem.errors?.length) {
    status.details = {
      causes: problem.errors.map((e) => ({
        reason: 'FieldValueInvalid',
        field: e.path.replace(/^\//, '').replace(/\//g, '.'),
        message: e.message,
      })),
    };
  }
  return status;
}

/**
 * Answers what the HTTP parser refused before any request existed (Fastify's `clientErrorHandler`): oversized request
 * lines or headers (431), unknown methods and malformed requests (400), slow requests (408), as problem+json.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const title = TITLES[status] ?? (status === 408 ? 'Request Timeout' : 'Bad Request');
  const detail =
    status === 431
      ? 'the request line or headers are larger than the server accepts (16 KiB)'
      : status === 408
        ? 'the request was not received in time'
        : `the request could not be parsed as HTTP/1.1 (${error.code ?? 'malformed'}); check the method, target and headers`;
  const body = JSON.stringify({ type: typeFor(title), title, status, detail, instance: '/' });
  if (socket.writable && socket.bytesWritten === 0) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n` +
        'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Socket errors a request can meet on its way to the database (reset, refused, cut): no bug of svc's, so a 503. */
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether `error` is a lost or refused connection (node-postgres's own ends one with "Connection terminated"). */
export function lostConnection(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return typeof message === 'string' && /^Connection terminated\b/.test(message);
}
