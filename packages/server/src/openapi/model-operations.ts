/**
 * One model's part of an OpenAPI document: its component schemas (the object, with `x-kubernetes-group-version-kind`,
 * and its list) and the paths of its generated routes (api/generated-routes.ts), as the Kubernetes API server describes
 * a custom resource: the operations carry `x-kubernetes-action` and `x-kubernetes-group-version-kind`, which is how
 * `kubectl explain` and `kubectl apply` find a resource's schema. Pure.
 */
import type { JsonSchema } from '@svc/plugin-api';
import { componentKey, type Dialect, schemaComponents } from './schema-dialects.js';
import { errorResponses, META, ref } from './shared-components.js';

/** What a document needs of a model (NormalizedModel has it). */
export interface ModelShape {
  group: string;
  version: string;
  kind: string;
  plural: string;
  apiVersion: string;
  schema: JsonSchema | undefined;
  statusSubresource: boolean;
  /** Query parameters of its DELETE beyond Kubernetes' own (a Plugin's `data`). */
  deleteParameters?: readonly { name: string; values: readonly string[]; default: string; description: string }[];
}

export interface DocumentPart {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

type Schema = Record<string, unknown>;

/** `run.svc.people.v1alpha1.Person` for people.svc.run; `core.v1alpha1.User` for the core group. */
export function modelComponentName(model: Pick<ModelShape, 'group' | 'version' | 'kind'>): string {
  const group = model.group === '' ? 'core' : model.group.split('.').reverse().join('.');
  return componentKey(`${group}.${model.version}.${model.kind}`);
}

/** The collection path, `/apis/<group>/<version>/<plural>` or `/api/<version>/<plural>`. */
export function collectionPath(model: Pick<ModelShape, 'group' | 'version' | 'plural'>): string {
  return model.group === ''
    ? `/api/${model.version}/${model.plural}`
    : `/apis/${model.group}/${model.version}/${model.plural}`;
}

export function modelPart(model: ModelShape, dialect: Dialect): DocumentPart {
  const name = modelComponentName(model);
  const gvk = { group: model.group, kind: model.kind, version: model.version };
  const components = schemaComponents(model.schema ?? { type: 'object' }, name, dialect);
  components[name] = objectSchema(components[name]!, model, gvk);
  components[`${name}List`] = listSchema(model, name, gvk);

  const object = ref(name);
  const json = (schema: Schema) => ({ 'application/json': { schema } });
  // Every operation: a bad target or selector (400), the gate (401, 403), a model or object not there (404).
  const READ = [400, 401, 403, 404];
  // A write's body can be too large or of a type not read (413, 415), or stale, or taking a name (409).
  const WRITE = [...READ, 409, 413, 415];
  const ok = (schema: Schema, status = '200', description = 'OK', errors = READ) => ({
    [status]: { description, content: json(schema) },
    ...errorResponses(errors),
  });
  const idBase = operationPrefix(model);
  const op = (action: string, verb: string, summary: string, rest: Schema, suffix = ''): Schema => ({
    operationId: `${verb}${idBase}${suffix}`,
    summary,
    tags: [model.apiVersion],
    ...rest,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const dryRun = queryParameter('dryRun', 'All: validate, admit and answer the write without storing it.', {
    type: 'string',
    enum: ['All'],
  });
  // kubectl validates on the client (with OpenAPI v2, which svc does not serve) unless the PATCH of the kind takes this.
  const fieldValidation = queryParameter(
    'fieldValidation',
    'Accepted as Kubernetes clients send it; svc checks every write against the model’s schema whatever it says.',
    { type: 'string', enum: ['Strict', 'Warn', 'Ignore'] },
  );
  const write = [dryRun, fieldValidation];
  const body = { required: true, content: json(object) };
  const patchBody = {
    required: true,
    content: {
      'application/merge-patch+json': { schema: ref(`${META}.Patch`) },
      'application/json-patch+json': { schema: ref(`${META}.Patch`) },
    },
  };
  // Server-side apply (docs/api.md "Server-side apply"): on the object only, with its manager and force.
  const applyBody = {
    required: true,
    content: { ...patchBody.content, 'application/apply-patch+yaml': { schema: ref(`${META}.Patch`) } },
  };
  const apply = [
    queryParameter('fieldManager', 'Who applies; required for application/apply-patch+yaml.'),
    queryParameter('force', 'Apply only: take over fields other managers own.', { type: 'boolean' }),
  ];
  const nameParameter = { name: 'name', in: 'path', required: true, description: 'metadata.name', schema: STRING };
  const deleteChoices = (model.deleteParameters ?? []).map((parameter) =>
    queryParameter(parameter.name, parameter.description, {
      type: 'string',
      enum: [...parameter.values],
      default: parameter.default,
    }),
  );
  const plural = model.plural;
  const base = collectionPath(model);
  const paths: DocumentPart['paths'] = {
    [base]: {
      get: op('list', 'list', `List ${plural}, or watch them`, {
        parameters: LIST_PARAMETERS,
        responses: ok(ref(`${name}List`)),
      }),
      post: op('post', 'create', `Create a ${model.kind}`, {
        parameters: write,
        requestBody: body,
        responses: ok(object, '201', 'Created; Location names the new object', WRITE),
      }),
      delete: op('deletecollection', 'deleteCollection', `Delete the ${plural} the selectors match`, {
        parameters: [LIST_PARAMETERS[0], LIST_PARAMETERS[1], dryRun, ...deleteChoices],
        responses: ok(ref(`${META}.DeletedCount`)),
      }),
    },
    [`${base}/{name}`]: {
      parameters: [nameParameter],
      get: op('get', 'read', `Read a ${model.kind}`, { responses: ok(object) }),
      put: op('put', 'replace', `Replace a ${model.kind} (metadata.version must be the stored one)`, {
        parameters: write,
        requestBody: body,
        responses: ok(object, '200', 'OK', WRITE),
      }),
      patch: op('patch', 'patch', `Patch a ${model.kind}, or apply a configuration on the server`, {
        parameters: [...write, ...apply],
        requestBody: applyBody,
        responses: ok(object, '200', 'OK', WRITE),
      }),
      delete: op('delete', 'delete', `Delete a ${model.kind} (it stays while it has finalizers)`, {
        parameters: [dryRun, ...deleteChoices],
        requestBody: { required: false, content: json(ref(`${META}.DeleteOptions`)) },
        responses: ok(object, '200', 'OK', WRITE),
      }),
    },
  };
  if (model.statusSubresource) {
    paths[`${base}/{name}/status`] = {
      parameters: [nameParameter],
      get: op('get', 'read', `Read the status of a ${model.kind}`, { responses: ok(object) }, 'Status'),
      put: op(
        'put',
        'replace',
        `Replace the status of a ${model.kind}`,
        { parameters: write, requestBody: body, responses: ok(object, '200', 'OK', WRITE) },
        'Status',
      ),
      patch: op(
        'patch',
        'patch',
        `Patch the status of a ${model.kind}`,
        { parameters: write, requestBody: patchBody, responses: ok(object, '200', 'OK', WRITE) },
        'Status',
      ),
    };
  }
  return { paths, components };
}

/** The model's own schema with the fields every object has, and its group, version and kind. */
function objectSchema(own: Schema, model: ModelShape, gvk: Schema): Schema {
  const properties = {
    apiVersion: { type: 'string', description: `Always ${model.apiVersion}.`, enum: [model.apiVersion] },
    kind: { type: 'string', description: `Always ${model.kind}.`, enum: [model.kind] },
    metadata: ref(`${META}.ObjectMeta`),
  };
  for (const [field, schema] of Object.entries((own.properties as Schema | undefined) ?? {})) {
    if (!(field in properties))
      Object.assign(properties, { [field]: field === 'status' ? openStatus(schema) : schema });
  }
  const required = Array.isArray(own.required)
    ? own.required.filter((f) => f !== 'apiVersion' && f !== 'kind' && f !== 'metadata')
    : [];
  const { required: _required, ...rest } = own;
  return {
    description: `${model.kind}, a model served at ${collectionPath(model)}.`,
    ...rest,
    ...(rest.type === undefined && rest.allOf === undefined ? { type: 'object' } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    'x-kubernetes-group-version-kind': [gvk],
  };
}

/**
 * A status declared as a bare object holds whatever the model's controllers write: said so (`additionalProperties`),
 * or generated clients would type it as an object with no fields at all.
 */
function openStatus(schema: unknown): unknown {
  const status = schema as Schema;
  if (status.type !== 'object' || status.properties !== undefined || status.additionalProperties !== undefined) {
    return schema;
  }
  return {
    description: 'Observed state, written by the model’s controllers.',
    ...status,
    additionalProperties: true,
  };
}

function listSchema(model: ModelShape, name: string, gvk: Schema): Schema {
  const integer = (description: string) => ({ type: 'integer', description });
  const boolean = { type: 'boolean' };
  return {
    type: 'object',
    description: `A page of ${model.plural} (docs/api.md "Lists").`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: ref(`${META}.ListMeta`),
      items: { type: 'array', items: ref(name) },
      page: integer('The page number, from 1.'),
      size: integer('The page size (0: everything).'),
      total: integer('How many objects match, on every page.'),
      totalPages: integer('How many pages there are.'),
      first: boolean,
      last: boolean,
      hasNext: boolean,
      hasPrevious: boolean,
    },
    'x-kubernetes-group-version-kind': [{ ...gvk, kind: `${model.kind}List` }],
  };
}

const STRING = { type: 'string' };

function queryParameter(name: string, description: string, schema: Schema = STRING): Schema {
  return { name, in: 'query', required: false, description, schema };
}

const LIST_PARAMETERS: Schema[] = [
  queryParameter('labelSelector', 'Label terms, comma-separated: k=v, k!=v, k, !k, k in (a,b), k notin (a,b).'),
  queryParameter('fieldSelector', 'Index terms, comma-separated: f=v, f!=v, f=(a,b); f= matches no value.'),
  queryParameter('sort', 'An index and a direction, for example spec.age,desc; repeatable.', {
    type: 'array',
    items: STRING,
  }),
  queryParameter('page', 'The page, from 1.', { type: 'integer', minimum: 1 }),
  queryParameter('size', 'The page size; absent: everything.', { type: 'integer', minimum: 0 }),
  queryParameter('limit', 'Kubernetes paging: the page size; follow metadata.continue.', {
    type: 'integer',
    minimum: 0,
  }),
  queryParameter('continue', 'Kubernetes paging: the token of the next page.'),
  queryParameter('watch', 'true: a stream of watch events, one JSON object per line.', { type: 'boolean' }),
  queryParameter('resourceVersion', 'For a watch: replay the changes after this revision, then go live.'),
  queryParameter('allowWatchBookmarks', 'For a watch: send BOOKMARK events.', { type: 'boolean' }),
  queryParameter('timeoutSeconds', 'For a watch: end it after this long.', { type: 'integer', minimum: 0 }),
];

/** `PeopleSvcRunV1alpha1Person`: unique across groups, so one document may hold every model. */
function operationPrefix(model: ModelShape): string {
  const words = [...model.group.split(/[.-]/), model.version, model.kind].filter((w) => w !== '');
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}
