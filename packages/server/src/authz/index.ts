/**
 * RBAC for svc: request classification, rule matching, role expansion, decisions, escalation checks and what a plugin
 * may grant. Everything here is pure and imports nothing from the rest of the server but the owner label's name
 * (objects/ownership.ts), so it can be read and tested on its own.
 */
export * from './request-info.js';
export * from './rules.js';
export * from './roles.js';
export * from './authorizer.js';
export * from './escalation.js';
export * from './plugin-grants.js';
