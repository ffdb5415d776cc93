import { CONSOLE_API, type JsonSchema, type PrinterColumn } from '@svc/plugin-api';
import { VERBS } from '../api/discovery-documents.js';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { callerOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { authorize } from '../authz/authorizer.js';
import type { Principal } from '../authz/principal.js';
import { classifyRequest } from '../authz/request-info.js';
import { parseRequestTarget } from '../authz/request-target.js';
import type { ExpandedRoles } from '../authz/roles.js';
import type { NormalizedModel } from '../objects/model-definition.js';
import { pluginOf } from '../objects/owner.js';
import type { ModelRegistry, ServedModel } from '../registry/model-registry.js';
import type { createAttributeResolver } from './authorization-hook.js';
import type { RoleService } from './role-service.js';

const BASE = CONSOLE_API;

/** An index a list may select on (`fieldSelector`) and sort by. */
export interface BrowsableIndex {
  name: string;
  unique: boolean;
  /** Computed by the model's code rather than read from the field path its name spells. */
  computed: boolean;
}

/** One model as the console's resource browser needs it, with the verbs the caller may use on its collection. */
export interface BrowsableModel {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  apiVersion: string;
  /** The plugin that declared the model; absent for the service's own models. */
  plugin?: string;
  shortNames: string[];
  statusSubresource: boolean;
  /** Of discovery's verbs, those the caller's roles allow on any object of the model. */
  verbs: string[];
  indexes: BrowsableIndex[];
  printerColumns: PrinterColumn[];
  schema: JsonSchema | undefined;
}

export interface ModelAccessDeps {
  registry: ModelRegistry;
  roles: RoleService;
  attributesOf: ReturnType<typeof createAttributeResolver>;
}

/** The indexes every model has, in the order the browser offers them (labels are selected with `labelSelector`). */
const DEFAULT_INDEXES: readonly BrowsableIndex[] = [
  { name: 'metadata.name', unique: true, computed: false },
  { name: 'metadata.creationTimestamp', unique: false, computed: false },
  { name: 'metadata.deletionTimestamp', unique: false, computed: false },
];

/**
 * `GET models` (docs/api.md "Console endpoints"): every model served on which the caller may use at least one verb,
 * with those verbs, its indexes, printer columns and schema. The verbs are the gate's own decisions (the same
 * authorizer and attribute resolver), so a browser never matches rules itself. Object verbs are decided for no object
 * in particular: a rule naming only some objects (`resourceNames`) does not count.
 */
export function modelAccessRoutes(deps: ModelAccessDeps): DynamicRoute<HttpContext>[] {
  return [
    {
      method: 'GET',
      path: `${BASE}/models`,
      owner: 'core',
      doc: {
        summary: 'The models you may browse, with the verbs you may use, their indexes, columns and schema',
        response: {
          type: 'object',
          required: ['items'],
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                required: ['group', 'version', 'kind', 'plural', 'apiVersion', 'verbs', 'indexes', 'printerColumns'],
                properties: {
                  group: { type: 'string' },
                  version: { type: 'string' },
                  kind: { type: 'string' },
                  plural: { type: 'string' },
                  singular: { type: 'string' },
                  apiVersion: { type: 'string' },
                  plugin: { type: 'string' },
                  shortNames: { type: 'array', items: { type: 'string' } },
                  statusSubresource: { type: 'boolean' },
                  verbs: { type: 'array', items: { type: 'string' } },
                  indexes: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        name: { type: 'string' },
                        unique: { type: 'boolean' },
                        computed: { type: 'boolean' },
                      },
                    },
                  },
                  printerColumns: { type: 'array', items: { type: 'object' } },
                  schema: { type: 'object', description: "The model's JSON Schema, as declared" },
                },
              },
            },
          },
        },
      },
      handler: (ctx) => {
        const principal = callerOf(ctx.request);
        const items = browsableModels(deps, principal);
        return ctx.reply.type(JSON_TYPE).send(JSON.stringify({ items }));
      },
    },
  ];
}

export function browsableModels(deps: ModelAccessDeps, principal: Principal): BrowsableModel[] {
  const expanded = deps.roles.expandFor(principal);
  return deps.registry
    .all()
    .map((served) => describe(served, allowedVerbs(deps, expanded, served.model)))
    .filter((model) => model.verbs.length > 0)
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.apiVersion.localeCompare(b.apiVersion));
}

/** Whether roles expanded thus (a caller's, or a set the role picker previews) may list at least one model. */
export function mayListAnyModel(deps: ModelAccessDeps, expanded: ExpandedRoles): boolean {
  return deps.registry.all().some((served) => allowedVerbs(deps, expanded, served.model, ['list']).length > 0);
}

function allowedVerbs(
  deps: ModelAccessDeps,
  expanded: ExpandedRoles,
  model: NormalizedModel,
  verbs: readonly string[] = VERBS,
): string[] {
  const path =
    model.group === '' ? `/api/${model.version}/${model.plural}` : `/apis/${model.apiVersion}/${model.plural}`;
  const parsed = parseRequestTarget(path);
  if (!parsed.ok) return [];
  // Classified as the gate classifies a list of the collection; each verb then asked as the gate asks a second verb.
  const info = classifyRequest({ method: 'GET', target: parsed.target });
  return verbs.filter(
    (verb) => authorize(deps.attributesOf({ ...info, verb }, 'GET', parsed.target.routePath), expanded).allowed,
  );
}

function describe(served: ServedModel, verbs: string[]): BrowsableModel {
  const { model } = served;
  const plugin = pluginOf(served.owner);
  return {
    group: model.group,
    version: model.version,
    kind: model.kind,
    plural: model.plural,
    singular: model.singular,
    apiVersion: model.apiVersion,
    ...(plugin === undefined ? {} : { plugin }),
    shortNames: model.shortNames,
    statusSubresource: model.statusSubresource,
    verbs,
    indexes: [
      ...DEFAULT_INDEXES,
      ...model.indexes.map((index) => ({
        name: index.name,
        unique: index.unique,
        computed: index.indexFunc !== undefined,
      })),
    ],
    printerColumns: model.printerColumns,
    schema: model.schema,
  };
}
