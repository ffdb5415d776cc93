/** Shared test data (a .suite.ts file: excluded from the build): the seed's Person model, group `<plugin>.svc.run`. */
import type { ModelDefinition } from '@svc/plugin-api';

export const personSchema = {
  type: 'object',
  // A model author may well list the common fields; svc checks those itself, so the schema must not.
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    spec: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', maxLength: 100 },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        gender: { enum: ['MALE', 'FEMALE'] },
        nickname: { type: 'string', default: 'none' },
        email: { type: 'string', format: 'email' },
        otherPerson: { $ref: '#' },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

export function personModel(overrides: Partial<ModelDefinition> = {}): ModelDefinition {
  return {
    group: 'people.svc.run',
    version: 'v1alpha1',
    kind: 'Person',
    plural: 'persons',
    schema: personSchema,
    ...overrides,
  };
}

export function person(spec: Record<string, unknown>, name = 'alice'): Record<string, unknown> {
  return { apiVersion: 'people.svc.run/v1alpha1', kind: 'Person', metadata: { name }, spec };
}
