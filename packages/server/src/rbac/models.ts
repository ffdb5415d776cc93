import { type ExtensionObject, KIND, type ModelDefinition } from '@svc/plugin-api';
import type { Role } from '../authz/roles.js';
import type { PolicyRule } from '../authz/rules.js';

const stringList = { type: 'array', items: { type: 'string', minLength: 1 } };

/** The seed's Role: rules at the top level, template flags in labels and annotations. Core group, `/api/v1alpha1/roles`. */
export const roleModel: ModelDefinition = {
  group: '',
  version: 'v1alpha1',
  kind: KIND.Role,
  plural: 'roles',
  singular: 'role',
  schema: {
    type: 'object',
    properties: {
      rules: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['verbs'],
          properties: {
            apiGroups: { type: 'array', items: { type: 'string' } },
            resources: stringList,
            resourceNames: stringList,
            nonResourceURLs: stringList,
            verbs: { ...stringList, minItems: 1 },
          },
        },
      },
    },
  },
  indexes: [],
};

/** The seed's RoleBinding: one role to users. Core group, `/api/v1alpha1/rolebindings`. */
export const roleBindingModel: ModelDefinition = {
  group: '',
  version: 'v1alpha1',
  kind: KIND.RoleBinding,
  plural: 'rolebindings',
  singular: 'rolebinding',
  schema: {
    type: 'object',
    required: ['roleRef', 'subjects'],
    properties: {
      roleRef: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'name'],
        properties: {
          apiGroup: { const: '' },
          kind: { const: KIND.Role },
          name: { type: 'string', minLength: 1 },
        },
      },
      subjects: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'name'],
          properties: {
            apiGroup: { const: '' },
            kind: { enum: [KIND.User, KIND.Group] },
            name: { type: 'string', minLength: 1 },
          },
        },
      },
    },
  },
  indexes: [
    { name: 'roleRef.name' },
    { name: 'subjects.name', indexFunc: (o) => ((o as RoleBindingObject).subjects ?? []).map((s) => s.name) },
  ],
};

export interface RoleObject extends ExtensionObject {
  rules?: PolicyRule[];
}

export interface RoleBindingObject extends ExtensionObject {
  roleRef: { apiGroup?: string; kind: typeof KIND.Role; name: string };
  subjects: Array<{ apiGroup?: string; kind: typeof KIND.User | typeof KIND.Group; name: string }>;
}

/** The stored object as the pure authorization code sees it. */
export function toRole(object: ExtensionObject): Role {
  return {
    name: object.metadata.name,
    labels: object.metadata.labels ?? {},
    annotations: object.metadata.annotations ?? {},
    rules: (object as RoleObject).rules ?? [],
  };
}
