/** The settings of the audit log (docs/access-control.md "Audit"). */
import { setting } from './setting.js';
import { absolutePath, duration, optional, size, wholeNumber } from './values.js';

export const AUDIT_SETTINGS = [
  setting({
    key: 'auditLog',
    env: 'SVC_AUDIT_LOG',
    arg: 'FILE|-',
    unset: 'none',
    help: 'also write audit events to this file (- stdout)',
    docs:
      'a file that audit events are also written to, one JSON object a line (`-`: standard output), a new file ' +
      'once it passes `SVC_AUDIT_LOG_MAX_SIZE`; unset, they go only to the store',
    parse: optional((raw, at) => (raw.trim() === '-' ? '-' : absolutePath(raw, at))),
  }),
  setting({
    key: 'auditLogMaxSize',
    env: 'SVC_AUDIT_LOG_MAX_SIZE',
    arg: 'SIZE',
    default: '100M',
    help: 'size at which the audit file is rotated',
    docs: 'the size at which the audit file is rotated (`10M`, `1G`); the rotated files are named with their time',
    parse: size,
  }),
  setting({
    key: 'auditLogMaxFiles',
    env: 'SVC_AUDIT_LOG_MAX_FILES',
    arg: 'N',
    default: '5',
    help: 'rotated audit files kept',
    docs: 'how many rotated audit files are kept',
    parse: wholeNumber('a whole number of files, at least 1', 1),
  }),
  setting({
    key: 'auditPolicy',
    env: 'SVC_AUDIT_POLICY',
    arg: 'FILE',
    unset: 'writes at Metadata',
    help: 'an audit.k8s.io/v1 Policy file',
    docs:
      "a Kubernetes `audit.k8s.io/v1` `Policy` file choosing each request's level by user, group, verb and " +
      'resource; unset: every write (sign-ins, tokens, passwords, roles and plugins included) at `Metadata`, reads ' +
      'not at all',
    parse: optional(absolutePath),
  }),
  setting({
    key: 'auditRetention',
    field: 'auditRetentionMs',
    env: 'SVC_AUDIT_RETENTION',
    arg: 'TIME',
    default: '30d',
    help: 'how long the store keeps audit events',
    docs: 'how long the store keeps audit events (`90d`, `12h`); older ones are deleted hourly',
    parse: duration,
  }),
] as const;
