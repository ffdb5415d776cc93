import type { ExtensionObject, ModelDefinition } from '@svc/plugin-api';
import { FAREWELL_FINALIZER, PEOPLE_GROUP, PEOPLE_VERSION, PERSON_KIND } from './vocabulary.js';

export interface PersonSpec {
  name?: string;
  age?: number;
  gender?: 'MALE' | 'FEMALE';
  otherPerson?: Person;
}

export type Person = ExtensionObject<PersonSpec>;

export const GENDERS = ['MALE', 'FEMALE'] as const;

const SPEC_FIELDS = {
  name: { type: 'string', maxLength: 100 },
  age: { type: 'integer', minimum: 0, maximum: 150 },
  gender: { type: 'string', enum: [...GENDERS] },
};

/**
 * A Person's spec on its own, for the custom routes' schemas: the nested person is checked when the Person is written
 * (its `$ref: "#"` means the whole Person only inside the model's schema).
 */
export const personSpecSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...SPEC_FIELDS, otherPerson: { type: 'object', description: 'A whole nested Person.' } },
};

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
        additionalProperties: false,
        properties: {
          ...SPEC_FIELDS,
          // A whole nested Person: the schema refers to itself.
          otherPerson: { $ref: '#' },
        },
      },
      status: { type: 'object' },
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
