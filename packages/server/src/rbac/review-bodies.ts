/**
 * The bodies of Kubernetes' self reviews (authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview,
 * authentication.k8s.io/v1 SelfSubjectReview), read from JSON or from the protobuf kubectl sends (the messages'
 * fields below, as api/kubernetes-protobuf.ts reads them), and the request attributes an access review asks about.
 * Pure.
 */
import { badRequest, type FieldError, invalid } from '@svc/plugin-api';
import type { ProtobufMessage } from '../api/kubernetes-protobuf.js';
import type { Attributes } from '../authz/rules.js';

/** authorization.k8s.io/v1 ResourceAttributes' string fields (the selectors, 8 and 9, are not read). */
const RESOURCE_ATTRIBUTES = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;
const NON_RESOURCE_ATTRIBUTES = ['path', 'verb'] as const;

export const ACCESS_REVIEW_MESSAGE: ProtobufMessage = {
  2: [
    'spec',
    {
      1: [
        'resourceAttributes',
        { 1: 'namespace', 2: 'verb', 3: 'group', 4: 'version', 5: 'resource', 6: 'subresource', 7: 'name' },
      ],
      2: ['nonResourceAttributes', { 1: 'path', 2: 'verb' }],
    },
  ],
};
export const RULES_REVIEW_MESSAGE: ProtobufMessage = { 2: ['spec', { 1: 'namespace' }] };
/** A SelfSubjectReview carries nothing to read (its status is the answer). */
export const SELF_REVIEW_MESSAGE: ProtobufMessage = {};

export interface AccessReviewSpec {
  resourceAttributes?: Partial<Record<(typeof RESOURCE_ATTRIBUTES)[number], string>>;
  nonResourceAttributes?: Partial<Record<(typeof NON_RESOURCE_ATTRIBUTES)[number], string>>;
}

/** The body as an object of `apiVersion` and `kind` (when given, they must be these); else a 400. */
export function reviewBody(body: unknown, apiVersion: string, kind: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the body must be a ${kind} object ({"apiVersion": "${apiVersion}", "kind": "${kind}", …})`);
  }
  const object = body as Record<string, unknown>;
  if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
    throw badRequest(`apiVersion must be "${apiVersion}", got ${JSON.stringify(object.apiVersion)}`);
  }
  if (object.kind !== undefined && object.kind !== kind) {
    throw badRequest(`kind must be "${kind}", got ${JSON.stringify(object.kind)}`);
  }
  return object;
}

/**
 * An access review's spec, checked: exactly one of resourceAttributes and nonResourceAttributes, strings only, a verb,
 * and a non-resource path starting with `/`. The namespace is read and has no effect (svc has no namespaces).
 */
export function accessReviewSpec(review: Record<string, unknown>): AccessReviewSpec {
  const spec = review.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw invalid('spec is required: {"resourceAttributes": {…}} or {"nonResourceAttributes": {…}}', [
      { path: '/spec', message: 'required' },
    ]);
  }
  const { resourceAttributes, nonResourceAttributes } = spec as Record<string, unknown>;
  if ((resourceAttributes === undefined) === (nonResourceAttributes === undefined)) {
    throw invalid('exactly one of spec.resourceAttributes and spec.nonResourceAttributes must be given', [
      { path: '/spec', message: 'exactly one of resourceAttributes and nonResourceAttributes' },
    ]);
  }
  const errors: FieldError[] = [];
  const strings = <K extends string>(value: unknown, fields: readonly K[], at: string) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ path: at, message: 'must be an object' });
      return {};
    }
    const read: Partial<Record<K, string>> = {};
    for (const field of fields) {
      const v = (value as Record<string, unknown>)[field];
      if (v === undefined) continue;
      if (typeof v === 'string') read[field] = v;
      else errors.push({ path: `${at}/${field}`, message: 'must be a string' });
    }
    if (!read['verb' as K]) errors.push({ path: `${at}/verb`, message: 'required (a verb such as get, or *)' });
    return read;
  };
  const read: AccessReviewSpec =
    resourceAttributes !== undefined
      ? { resourceAttributes: strings(resourceAttributes, RESOURCE_ATTRIBUTES, '/spec/resourceAttributes') }
      : {
          nonResourceAttributes: strings(nonResourceAttributes, NON_RESOURCE_ATTRIBUTES, '/spec/nonResourceAttributes'),
        };
  const path = read.nonResourceAttributes?.path;
  if (read.nonResourceAttributes && !path?.startsWith('/')) {
    errors.push({ path: '/spec/nonResourceAttributes/path', message: 'required, starting with "/"' });
  }
  if (errors.length > 0) throw invalid(errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
  return read;
}

/** What the gate would match for the request a spec describes (the owning plugin is added by the caller). */
export function attributesOfSpec(spec: AccessReviewSpec): Attributes {
  const none = { apiGroup: '', resource: '', subresource: '', name: '' };
  if (spec.nonResourceAttributes) {
    const { path = '/', verb = '' } = spec.nonResourceAttributes;
    return { isResourceRequest: false, verb, path, ...none };
  }
  const r = spec.resourceAttributes ?? {};
  return {
    isResourceRequest: true,
    verb: r.verb ?? '',
    path: '',
    apiGroup: r.group ?? '',
    resource: r.resource ?? '',
    subresource: r.subresource ?? '',
    name: r.name ?? '',
  };
}
