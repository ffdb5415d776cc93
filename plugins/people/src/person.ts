import type { ExtensionObject, ModelDefinition } from '@svc/plugin-api';
import type { FromSchema } from 'json-schema-to-ts';
import { FAREWELL_FINALIZER, PEOPLE_GROUP, PEOPLE_VERSION, PERSON_KIND } from './vocabulary.js';

/** The spec's type, derived from its schema (SPEC_FIELDS) so the two cannot drift; the nested person is recursive. */
export type PersonSpec = FromSchema<{ type: 'object'; properties: typeof SPEC_FIELDS }> & { otherPerson?: Person };

export type Person = ExtensionObject<PersonSpec>;

export const GENDERS = ['MALE', 'FEMALE'] as const;

/** The spec's fields; their descriptions are what `kubectl explain persons.spec` and the API reference show. */
const SPEC_FIELDS = {
  name: { type: 'string', maxLength: 100, description: 'The person’s full name; unique among persons.' },
  age: { type: 'integer', minimum: 0, maximum: 150, description: 'Age in years; the status’s age group follows it.' },
  gender: { type: 'string', enum: [...GENDERS], description: 'MALE or FEMALE.' },
} as const;

/** What the person controller reports (reconciler.ts, PersonStatus). Open, so older statuses still validate. */
export const personStatusSchema = {
  type: 'object',
  description: 'Observed state, written by the person controller through the status subresource.',
  properties: {
    ageGroup: {
      type: 'string',
      enum: ['unknown', 'child', 'teen', 'adult', 'senior'],
      description: 'The age group spec.age falls in (unknown without an age).',
    },
    observedVersion: {
      type: 'integer',
      description: 'The metadata.version of the person when this status was computed.',
    },
    conditions: {
      type: 'array',
      description: 'The Ready condition, as Kubernetes conditions are written.',
      items: {
        type: 'object',
        required: ['type', 'status'],
        properties: {
          type: { type: 'string', description: 'The condition, Ready.' },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'Whether it holds.' },
          reason: { type: 'string', description: 'Why, in one CamelCase word.' },
          message: { type: 'string', description: 'Why, for people.' },
          lastTransitionTime: {
            type: 'string',
            format: 'date-time',
            description: 'When status last changed.',
          },
        },
      },
    },
  },
};

/**
 * A Person's spec on its own, for the custom routes' schemas: the nested person is checked when the Person is written
 * (its `$ref: "#"` means the whole Person only inside the model's schema).
 */
export const personSpecSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...SPEC_FIELDS, otherPerson: { type: 'object', description: 'A whole nested Person.' } },
} as const;

/** The seed's example model: group people.svc.run, version v1alpha1, kind Person. */
export const personModel: ModelDefinition<Person> = {
  group: PEOPLE_GROUP,
  version: PEOPLE_VERSION,
  kind: PERSON_KIND,
  plural: 'persons',
  singular: 'person',
  schema: {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        description: 'Desired state: who the person is.',
        additionalProperties: false,
        properties: {
          ...SPEC_FIELDS,
          // A whole nested Person: the schema refers to itself.
          otherPerson: { $ref: '#' },
        },
      },
      status: personStatusSchema,
    },
  },
  // status is written by the person controller through …/persons/{name}/status, never by the main route.
  statusSubresource: true,
  // Every person is held from its create, so one deleted before the controller first saw it still gets its farewell,
  // and the controller writes only the status.
  finalizers: [FAREWELL_FINALIZER],
  indexes: [{ name: 'spec.name', unique: true }, { name: 'spec.age' }, { name: 'spec.gender' }],
  // What `kubectl get persons` (or `kubectl get ps`) shows between Name and Age.
  shortNames: ['ps'],
  printerColumns: [
    { name: 'Full Name', type: 'string', jsonPath: '.spec.name', description: "The person's name" },
    { name: 'Years', type: 'integer', jsonPath: '.spec.age', description: "The person's age in years" },
    { name: 'Gender', type: 'string', jsonPath: '.spec.gender' },
    { name: 'Age Group', type: 'string', jsonPath: '.status.ageGroup', priority: 1 },
  ],
};
