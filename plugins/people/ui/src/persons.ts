import type { ExtensionObject } from '@svc/client';
import { client, t } from '@svc/console-shared';
import { CONSOLE_API_VERSION, PEOPLE_GROUP, PEOPLE_VERSION } from '../../src/vocabulary';

export const GENDERS = ['MALE', 'FEMALE'] as const;
export type Gender = (typeof GENDERS)[number];

export interface PersonSpec {
  name?: string;
  age?: number;
  gender?: Gender;
}

/** A Person of `people.svc.run/v1alpha1` (the plugin's model; status is written by its controller). */
export type Person = ExtensionObject<PersonSpec, { ageGroup?: string }>;

/** What the form edits. */
export interface PersonDraft {
  name: string;
  age: number | null;
  gender: Gender | null;
}

/** The answer of the plugin's custom API `GET /apis/console.api.people.svc.run/v1alpha1/stats`. */
export interface PersonStats {
  total: number;
  byGender: Record<string, number>;
}

export const persons = () =>
  client.resource<Person>({ group: PEOPLE_GROUP, version: PEOPLE_VERSION, plural: 'persons' });

export const readStats = () => client.request<PersonStats>('GET', `/apis/${CONSOLE_API_VERSION}/stats`);

/** The spec a draft writes: empty fields are left out, so the schema's own checks name what is wrong. */
export function specOf(draft: PersonDraft): PersonSpec {
  return {
    ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
    ...(draft.age === null ? {} : { age: draft.age }),
    ...(draft.gender === null ? {} : { gender: draft.gender }),
  };
}

/** A name for a new Person object from the person's name: lowercase letters, digits and dashes. */
export function objectNameOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return slug || 'person';
}

/** A gender in words, in the language shown (read where shown: a template or a computed value). */
export const genderLabel = (gender: string | undefined) =>
  gender === 'MALE' ? t('people.male') : gender === 'FEMALE' ? t('people.female') : '—';
