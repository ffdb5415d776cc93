/**
 * Which requests are audited, and at what level: a policy in Kubernetes' `audit.k8s.io/v1` `Policy` shape, read from
 * SVC_AUDIT_POLICY or the default below. The first rule that matches a request decides its level; none matching is
 * `None`. Rules match as Kubernetes' do: every field a rule gives must match, a field it leaves out matches all.
 */
import { parse } from 'yaml';
import { LEVELS, type Level, type Stage } from './event.js';

export interface GroupResources {
  /** The API group; `""` is the core group. */
  group?: string;
  /** Plurals, `plural/subresource`, a subresource of every plural (`*` followed by `/status`), or `*`. */
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  /** Paths; a trailing `*` matches everything below. */
  nonResourceURLs?: string[];
  omitStages?: Stage[];
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
}

/** What a policy reads of a request. */
export interface PolicyRequest {
  username: string;
  groups: readonly string[];
  verb: string;
  isResourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

/**
 * svc's default: every write (and so every sign-in, sign-out, token, password, role, binding and plugin change, and
 * the first-run setup, all of which are writes) at Metadata; reads not at all.
 */
export const DEFAULT_POLICY: Policy = Object.freeze({
  rules: [{ level: 'None', verbs: ['get', 'list', 'watch', 'head'] }, { level: 'Metadata' }],
}) as Policy;

/** The level `policy` gives `request`. Pure. */
export function levelFor(policy: Policy, request: PolicyRequest): Level {
  return policy.rules.find((rule) => ruleMatches(rule, request))?.level ?? 'None';
}

function ruleMatches(rule: PolicyRule, request: PolicyRequest): boolean {
  if (rule.users && !rule.users.includes(request.username)) return false;
  if (rule.userGroups && !rule.userGroups.some((group) => request.groups.includes(group))) return false;
  if (rule.verbs && !rule.verbs.includes(request.verb) && !rule.verbs.includes('*')) return false;
  if (rule.resources || rule.nonResourceURLs) {
    if (request.isResourceRequest) return rule.resources?.some((r) => resourcesMatch(r, request)) ?? false;
    return rule.nonResourceURLs?.some((url) => urlMatches(url, request.path)) ?? false;
  }
  return true;
}

function resourcesMatch(rule: GroupResources, request: PolicyRequest): boolean {
  if (rule.group !== undefined && rule.group !== '*' && rule.group !== request.apiGroup) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(request.name)) return false;
  if (!rule.resources?.length) return true;
  const full = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  return rule.resources.some(
    (r) => r === '*' || r === full || (request.subresource !== '' && r === `*/${request.subresource}`),
  );
}

function urlMatches(pattern: string, path: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return pattern === path;
}

/**
 * Reads a policy file's text (YAML or JSON): `apiVersion: audit.k8s.io/v1`, `kind: Policy`, `rules`. Throws an Error
 * naming the first thing wrong, so a bad file stops the server at start with a clear message.
 */
export function readPolicy(text: string, where: string): Policy {
  const document = parse(text) as unknown;
  const problem = (detail: string) => new Error(`${where}: ${detail}`);
  if (!isObject(document)) throw problem('a policy is a mapping with apiVersion, kind and rules');
  if (document.apiVersion !== 'audit.k8s.io/v1' || document.kind !== 'Policy') {
    throw problem('apiVersion must be audit.k8s.io/v1 and kind Policy');
  }
  if (!Array.isArray(document.rules) || document.rules.length === 0) throw problem('rules must be a non-empty list');
  const rules = document.rules.map((rule, i) => readRule(rule, (detail) => problem(`rules[${i}]: ${detail}`)));
  const omitStages = stages(document.omitStages, (detail) => problem(`omitStages: ${detail}`));
  return { rules, ...(omitStages ? { omitStages } : {}) };
}

const RULE_FIELDS = new Set([
  'level',
  'users',
  'userGroups',
  'verbs',
  'resources',
  'nonResourceURLs',
  'omitStages',
  'namespaces',
]);
const STAGES = new Set<Stage>(['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']);

function readRule(value: unknown, problem: (detail: string) => Error): PolicyRule {
  if (!isObject(value)) throw problem('a rule is a mapping');
  const unknown = Object.keys(value).find((key) => !RULE_FIELDS.has(key));
  if (unknown) throw problem(`unknown field "${unknown}"`);
  if (!LEVELS.includes(value.level as Level)) throw problem(`level must be one of ${LEVELS.join(', ')}`);
  const rule: PolicyRule = { level: value.level as Level };
  for (const field of ['users', 'userGroups', 'verbs', 'nonResourceURLs'] as const) {
    if (value[field] === undefined) continue;
    if (!isStrings(value[field])) throw problem(`${field} must be a list of strings`);
    rule[field] = value[field] as string[];
  }
  if (value.resources !== undefined) {
    if (!Array.isArray(value.resources)) throw problem('resources must be a list');
    rule.resources = value.resources.map((r, i) => {
      if (!isObject(r)) throw problem(`resources[${i}] must be a mapping`);
      for (const field of ['resources', 'resourceNames'] as const) {
        if (r[field] !== undefined && !isStrings(r[field]))
          throw problem(`resources[${i}].${field} must be a list of strings`);
      }
      if (r.group !== undefined && typeof r.group !== 'string') throw problem(`resources[${i}].group must be a string`);
      return r as GroupResources;
    });
  }
  const omitted = stages(value.omitStages, problem);
  if (omitted) rule.omitStages = omitted;
  return rule;
}

function stages(value: unknown, problem: (detail: string) => Error): Stage[] | undefined {
  if (value === undefined) return undefined;
  if (!isStrings(value) || !value.every((s) => STAGES.has(s as Stage))) {
    throw problem(`must be a list of ${[...STAGES].join(', ')}`);
  }
  return value as Stage[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
