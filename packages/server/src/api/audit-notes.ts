/**
 * What a handler notes for the request's audit event (Kubernetes' audit annotations): the username a failed sign-in
 * tried, say. The audit module reads them when it writes the event; without it they are dropped with the request.
 */
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    auditNotes?: Record<string, string>;
    /** A sign-in that arrives as a GET (the OIDC callback): audited as a write, verb `post`, as `POST /login` is. */
    auditAsSignIn?: boolean;
  }
}

/** The notes of a sign-in's event: who tried, and why a refused one was refused (when svc may say). */
export const SIGN_IN_NOTES = {
  username: 'authentication.svc.run/username',
  failure: 'authentication.svc.run/failure',
} as const;

export function markSignIn(request: FastifyRequest): void {
  request.auditAsSignIn = true;
}

export function noteForAudit(request: FastifyRequest, key: string, value: string): void {
  request.auditNotes ??= {};
  request.auditNotes[key] = value;
}
