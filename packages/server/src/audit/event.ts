import type { KIND } from '@svc/plugin-api';
/**
 * An audit event in Kubernetes' `audit.k8s.io/v1` `Event` shape (docs/access-control.md "Audit"), so tools that read
 * the API server's audit log read svc's. One event a request, at stage ResponseComplete (a watch's at
 * ResponseStarted, when its stream begins); the level decides how much of the request it carries.
 */

/** How much an event records, as Kubernetes orders them. */
export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];

export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  kind: typeof KIND.Event;
  apiVersion: 'audit.k8s.io/v1';
  level: Exclude<Level, 'None'>;
  auditID: string;
  stage: Stage;
  requestURI: string;
  /** Kubernetes' verb: the request's classification (`create`, `list`, …), or the HTTP method's for other paths. */
  verb: string;
  user: { username: string; groups?: string[]; extra?: Record<string, string[]> };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: { metadata: Record<string, never>; code: number; status?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  /** What the request's handlers and svc noted: the authorization decision, an attempted username, the replica. */
  annotations?: Record<string, string>;
}

/** The username Kubernetes records for a request that carried no credentials. */
export const ANONYMOUS_USER = 'system:anonymous';
/** The groups Kubernetes gives every authenticated user, and every anonymous one. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
