import { KIND } from '@svc/plugin-api';

/**
 * The component schemas every document shares: object metadata, the list metadata, the error bodies, DeleteOptions
 * and the security schemes. Written once in the subset both OpenAPI dialects read (no type lists, no `const`).
 */

type Schema = Record<string, unknown>;

/** Component names, Kubernetes style (`<reversed group>.<version>.<Kind>`), so `kubectl explain` shows the last part. */
export const META = 'run.svc.meta.v1';
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const string = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const stringMap = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

const OBJECT_META: Schema = {
  type: 'object',
  description:
    'Metadata every object has. name, generateName, labels, annotations and finalizers are the client’s; the others are the server’s and cannot be changed by a client.',
  properties: {
    name: string('Unique within the model: lowercase letters, digits and "-", at most 253 characters.', {
      maxLength: 253,
    }),
    generateName: string('A prefix; on create the server appends random characters to make a free name.'),
    labels: stringMap('Keys and values to select objects by (labelSelector).'),
    annotations: stringMap('Keys and values for tools; not selectable.'),
    finalizers: {
      type: 'array',
      description: 'While not empty, a deleted object stays (with deletionTimestamp) until they are removed.',
      items: { type: 'string' },
    },
    version: {
      type: 'integer',
      minimum: 0,
      description: 'Incremented by every write; send back the one you read to update (optimistic lock).',
    },
    resourceVersion: string('Store revision of the last write; accepted as the optimistic lock like version.'),
    uid: string('Unique for the object’s whole life; set by the server.', { readOnly: true }),
    creationTimestamp: string('Set by the server at create.', { format: 'date-time', readOnly: true }),
    deletionTimestamp: string('Set by the server when a delete waits for finalizers.', {
      format: 'date-time',
      readOnly: true,
    }),
  },
};

const LIST_META: Schema = {
  type: 'object',
  properties: {
    resourceVersion: string('The store revision the list was read at: watch from it to follow the collection.'),
    continue: string('With limit: the token of the next page; absent on the last page.'),
    remainingItemCount: { type: 'integer', description: 'With limit: how many items follow this page.' },
  },
};

const PROBLEM: Schema = {
  type: 'object',
  description: 'An error, RFC 9457 problem details (application/problem+json).',
  required: ['type', 'title', 'status'],
  properties: {
    type: string('A URI naming the kind of error.'),
    title: string('The error’s short name.'),
    status: { type: 'integer', description: 'The HTTP status.' },
    detail: string('What went wrong, for people.'),
    instance: string('The request path.'),
    errors: {
      type: 'array',
      description: 'For validation errors: each offending field.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: string('JSON Pointer into the request body, for example /spec/age.'),
          message: string('What is wrong with it.'),
        },
      },
    },
  },
};

const STATUS: Schema = {
  type: 'object',
  description: 'An error as a Kubernetes Status: answered instead of problem+json to clients that accept only JSON.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    status: { type: 'string' },
    message: { type: 'string' },
    reason: { type: 'string' },
    code: { type: 'integer' },
    details: { type: 'object' },
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: KIND.Status, version: 'v1' }],
};

const DELETE_OPTIONS: Schema = {
  type: 'object',
  description: 'An optional DELETE body, as Kubernetes clients send it.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    dryRun: { type: 'array', items: { type: 'string', enum: ['All'] } },
    preconditions: {
      type: 'object',
      properties: { uid: { type: 'string' }, resourceVersion: { type: 'string' } },
    },
  },
};

const DELETED_COUNT: Schema = {
  type: 'object',
  required: ['deleted'],
  properties: { deleted: { type: 'integer', description: 'How many objects the delete reached.' } },
};

const PATCH: Schema = {
  description: 'A JSON Merge Patch (RFC 7386) object, or a JSON Patch (RFC 6902) array of operations.',
};

export const SHARED_SCHEMAS: Record<string, Schema> = {
  [`${META}.ObjectMeta`]: OBJECT_META,
  [`${META}.ListMeta`]: LIST_META,
  [`${META}.Problem`]: PROBLEM,
  [`${META}.Status`]: STATUS,
  [`${META}.DeleteOptions`]: DELETE_OPTIONS,
  [`${META}.DeletedCount`]: DELETED_COUNT,
  [`${META}.Patch`]: PATCH,
};

/** The ways to authenticate (docs/access-control.md); every route accepts all three. */
export const SECURITY_SCHEMES: Record<string, Schema> = {
  BearerToken: { type: 'http', scheme: 'bearer', description: 'A personal access token (pat_…).' },
  BasicAuth: { type: 'http', scheme: 'basic', description: 'Username and password.' },
  Session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'SVC_SESSION',
    description: 'The session cookie set by POST /login; writes also need the X-XSRF-TOKEN header.',
  },
};

export const SECURED = [{ BearerToken: [] }, { BasicAuth: [] }, { Session: [] }];

/** The 4xx answers an operation may document, each a shared response (`#/components/responses/<name>`). */
const ERRORS: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Bad request: a malformed or invalid body, selector, name or target' },
  401: { name: 'Unauthorized', description: 'No credentials, or bad ones (WWW-Authenticate says how to sign in)' },
  403: { name: 'Forbidden', description: 'Signed in, but no rule allows this' },
  404: { name: 'NotFound', description: 'No such object, model or route' },
  409: { name: 'Conflict', description: 'A stale or missing metadata.version, or a name or unique value taken' },
  413: { name: 'PayloadTooLarge', description: 'The body is over the limit' },
  415: { name: 'UnsupportedMediaType', description: 'The body’s Content-Type is not one this operation reads' },
  429: { name: 'TooManyRequests', description: 'Too many attempts: wait as Retry-After says' },
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429;

const ERROR_BODY = {
  'application/problem+json': { schema: ref(`${META}.Problem`) },
  'application/json': { schema: ref(`${META}.Status`) },
};

/** The shared error responses, for `components.responses` (documents keep those their operations name). */
export const ERROR_RESPONSES: Record<string, Schema> = Object.fromEntries(
  Object.values(ERRORS).map(({ name, description }) => [
    name,
    { description: `${description} (problem+json; a Kubernetes Status to JSON-only clients)`, content: ERROR_BODY },
  ]),
);

/**
 * The error responses of an operation: the 4xx ones it can give (`statuses`), each as problem+json and Kubernetes'
 * Status, and `default` for the rest (a 503 while not ready, a server bug's 500).
 */
export function errorResponses(statuses: Iterable<number>): Record<string, unknown> {
  const codes = [...new Set(statuses)].filter((s) => ERRORS[s] !== undefined).sort();
  return {
    ...Object.fromEntries(codes.map((s) => [String(s), { $ref: `#/components/responses/${ERRORS[s]!.name}` }])),
    default: {
      description: 'Another error (problem+json; a Kubernetes Status to JSON-only clients)',
      content: ERROR_BODY,
    },
  };
}
