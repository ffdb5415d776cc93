/**
 * Kubernetes' reviews of the caller's own access and identity, so `kubectl auth can-i` (SelfSubjectAccessReview),
 * `kubectl auth can-i --list` (SelfSubjectRulesReview) and `kubectl auth whoami` (SelfSubjectReview) work against svc
 * (docs/api.md "kubectl auth"). An access review answers with the gate's own decision: the same roles, the same rule
 * matching and the same owning plugin as the request it describes would get. Every signed-in caller may ask them
 * (the `authenticated` role's self-service template); an anonymous caller gets the gate's 401.
 */
import {
  KIND,
  KUBERNETES_AUTHENTICATION_GROUP,
  KUBERNETES_AUTHORIZATION_GROUP,
  type PolicyRule,
  SUPER_ROLE,
} from '@svc/plugin-api';
import type { DiscoveredResource } from '../api/discovery.js';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { Principal } from '../authz/principal.js';
import type { Attributes } from '../authz/rules.js';
import {
  ACCESS_REVIEW_MESSAGE,
  accessReviewSpec,
  attributesOfSpec,
  RULES_REVIEW_MESSAGE,
  reviewBody,
  SELF_REVIEW_MESSAGE,
} from './review-bodies.js';
import type { RoleService } from './role-service.js';

const AUTHORIZATION = `${KUBERNETES_AUTHORIZATION_GROUP}/v1`;
const AUTHENTICATION = `${KUBERNETES_AUTHENTICATION_GROUP}/v1`;

/** The three reviews as discovery lists them: created, never stored. */
export const SELF_REVIEW_RESOURCES: DiscoveredResource[] = [
  review(KUBERNETES_AUTHORIZATION_GROUP, KIND.SelfSubjectAccessReview),
  review(KUBERNETES_AUTHORIZATION_GROUP, KIND.SelfSubjectRulesReview),
  review(KUBERNETES_AUTHENTICATION_GROUP, KIND.SelfSubjectReview),
];

function review(group: string, kind: string): DiscoveredResource {
  const singular = kind.toLowerCase();
  return { group, version: 'v1', kind, plural: `${singular}s`, singular, verbs: ['create'] };
}

const OPEN_OBJECT = { type: 'object', additionalProperties: true };

export interface SelfReviewDeps {
  roles: RoleService;
  /** The plugin owning a group's resource, so `<plugin>/<plural>` rules match as they do at the gate. */
  owningPlugin: (group: string, resource: string) => string | undefined;
}

export function selfReviewRoutes({ roles, owningPlugin }: SelfReviewDeps): DynamicRoute<HttpContext>[] {
  const send = (ctx: HttpContext, body: unknown) => ctx.reply.code(201).type(JSON_TYPE).send(JSON.stringify(body));
  const answer = (apiVersion: string, kind: string, rest: Record<string, unknown>) => ({
    apiVersion,
    kind,
    metadata: { creationTimestamp: null },
    ...rest,
  });
  const route = (
    path: string,
    protobuf: DynamicRoute<HttpContext>['protobuf'],
    summary: string,
    handler: (ctx: HttpContext, principal: Principal) => unknown,
  ): DynamicRoute<HttpContext> => ({
    method: 'POST',
    path,
    owner: 'core',
    // Answers a question and writes nothing, so a dry run is the same request.
    dryRun: true,
    protobuf,
    // Kubernetes' own kinds: their schemas are Kubernetes' (authorization.k8s.io/v1, authentication.k8s.io/v1).
    doc: { summary, status: 201, requestBody: OPEN_OBJECT, response: OPEN_OBJECT },
    handler: (ctx) => send(ctx, handler(ctx, callerOf(ctx.request))),
  });
  return [
    route(
      `/apis/${AUTHORIZATION}/selfsubjectaccessreviews`,
      ACCESS_REVIEW_MESSAGE,
      'Whether you may make a request (kubectl auth can-i): the gate’s own decision',
      (ctx, principal) => {
        const body = reviewBody(ctx.request.body, AUTHORIZATION, KIND.SelfSubjectAccessReview);
        const spec = accessReviewSpec(body);
        const attributes: Attributes = attributesOfSpec(spec);
        const plugin = attributes.isResourceRequest
          ? owningPlugin(attributes.apiGroup, attributes.resource)
          : undefined;
        const decision = roles.authorize(principal, plugin === undefined ? attributes : { ...attributes, plugin });
        // RBAC allows or has no opinion, and svc denies what nothing allows: "not allowed" is "denied" here.
        const status = { allowed: decision.allowed, denied: !decision.allowed, reason: decision.reason };
        return answer(AUTHORIZATION, KIND.SelfSubjectAccessReview, { spec, status });
      },
    ),
    route(
      `/apis/${AUTHORIZATION}/selfsubjectrulesreviews`,
      RULES_REVIEW_MESSAGE,
      'The rules you hold (kubectl auth can-i --list)',
      (ctx, principal) => {
        const body = reviewBody(ctx.request.body, AUTHORIZATION, KIND.SelfSubjectRulesReview);
        const spec = typeof body.spec === 'object' && body.spec !== null ? body.spec : {};
        const status = rulesOf(roles, principal, owningPlugin);
        return answer(AUTHORIZATION, KIND.SelfSubjectRulesReview, { spec, status });
      },
    ),
    route(
      `/apis/${AUTHENTICATION}/selfsubjectreviews`,
      SELF_REVIEW_MESSAGE,
      'Who you are signed in as (kubectl auth whoami)',
      (ctx, principal) => {
        reviewBody(ctx.request.body, AUTHENTICATION, KIND.SelfSubjectReview);
        // The groups bindings may name (an OIDC credential's, a local user's spec.groups), as kubectl auth whoami lists.
        const groups = roles.groupsOf(principal);
        const userInfo = { username: principal.username ?? '', ...(groups.length > 0 ? { groups } : {}) };
        return answer(AUTHENTICATION, KIND.SelfSubjectReview, { status: { userInfo } });
      },
    ),
  ];
}

/**
 * The caller's rules as Kubernetes' SubjectRulesReviewStatus: resource rules and non-resource rules apart, and a
 * plugin's `<plugin>/<plural>` written as Kubernetes clients read a resource, `<plural>`, where the plugin owns it.
 */
function rulesOf(roles: RoleService, principal: Principal, owningPlugin: SelfReviewDeps['owningPlugin']) {
  const expanded = roles.expandFor(principal);
  const rules: PolicyRule[] = expanded.roleNames.has(SUPER_ROLE)
    ? [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ]
    : expanded.rules.map(({ rule }) => rule);
  const resourceRules = rules
    .filter((r) => (r.resources ?? []).length > 0)
    .map((r) => ({
      verbs: r.verbs,
      apiGroups: r.apiGroups ?? [],
      resources: r.resources!.map((resource) => {
        const [plugin, ...rest] = resource.split('/');
        const plural = rest.join('/');
        const owned = (r.apiGroups ?? []).some((g) => owningPlugin(g, rest[0]!) === plugin);
        return rest.length > 0 && plugin !== '*' && owned ? plural : resource;
      }),
      ...((r.resourceNames ?? []).length > 0 ? { resourceNames: r.resourceNames } : {}),
    }));
  const nonResourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length > 0)
    .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }));
  return { resourceRules, nonResourceRules, incomplete: false };
}
