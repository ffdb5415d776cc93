import { KIND, REPLICA_ANNOTATION } from '@svc/plugin-api';
/**
 * The audit event of one request (event.ts), from what the kernel knows of it: its classification, its caller, the
 * gate's decision, the handler's notes and the answer. Pure: the hook (recorder.ts) gathers the inputs.
 */
import type { RequestInfo } from '../authz/request-info.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, type AuditEvent, type Level, UNAUTHENTICATED_GROUP } from './event.js';
import { isoTime } from './iso-time.js';
import { redacted } from './redact.js';

export interface RequestFacts {
  id: string;
  uri: string;
  info: RequestInfo;
  username: string | undefined;
  groups?: readonly string[];
  sourceIPs: string[];
  userAgent: string | undefined;
  status: number;
  receivedAt: number;
  now: number;
  decision?: { allowed: boolean; reason: string };
  notes?: Record<string, string>;
  replica?: string;
  requestBody?: unknown;
  responseBody?: unknown;
}

export function buildEvent(level: Exclude<Level, 'None'>, facts: RequestFacts): AuditEvent {
  const { info } = facts;
  const annotations: Record<string, string> = { ...facts.notes };
  if (facts.decision) {
    annotations['authorization.k8s.io/decision'] = facts.decision.allowed ? 'allow' : 'forbid';
    annotations['authorization.k8s.io/reason'] = facts.decision.reason;
  }
  if (facts.replica) annotations[REPLICA_ANNOTATION] = facts.replica;
  const event: AuditEvent = {
    kind: KIND.Event,
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: facts.id,
    stage: 'ResponseComplete',
    requestURI: facts.uri,
    verb: info.verb,
    user: userOf(facts.username, facts.groups),
    sourceIPs: facts.sourceIPs,
    ...(facts.userAgent ? { userAgent: facts.userAgent } : {}),
    ...(info.isResourceRequest ? { objectRef: objectRefOf(info) } : {}),
    responseStatus: { metadata: {}, code: facts.status },
    requestReceivedTimestamp: isoTime(facts.receivedAt),
    stageTimestamp: isoTime(facts.now),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  if ((level === 'Request' || level === 'RequestResponse') && facts.requestBody !== undefined) {
    event.requestObject = redacted(facts.requestBody);
  }
  if (level === 'RequestResponse' && facts.responseBody !== undefined)
    event.responseObject = redacted(facts.responseBody);
  return event;
}

function userOf(username: string | undefined, groups: readonly string[] = []): AuditEvent['user'] {
  if (username === undefined) return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
  return { username, groups: [...groups, AUTHENTICATED_GROUP] };
}

function objectRefOf(info: RequestInfo): NonNullable<AuditEvent['objectRef']> {
  return {
    resource: info.resource,
    ...(info.name && info.name !== '-' ? { name: info.name } : {}),
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}
