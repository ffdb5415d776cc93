/**
 * The Person controller: keeps `status` in step with `spec` (an age group and a Ready condition, written through the
 * status subresource so it never fights users over `spec`), and holds a finalizer so it can say farewell before a
 * deleted person is removed. Persons get the finalizer at create (the model declares it); the controller adds it only
 * to one that lacks it (stored before, or a user took it off).
 */
import {
  handleFinalizer,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcilerDefinition,
} from '@svc/plugin-api';
import { type Person, personModel } from './person.js';
import { FAREWELL_FINALIZER } from './vocabulary.js';

export type AgeGroup = 'unknown' | 'child' | 'teen' | 'adult' | 'senior';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface PersonStatus {
  ageGroup: AgeGroup;
  conditions: Condition[];
  /** The person's `metadata.version` when this status was last computed. */
  observedVersion: number;
}

/** Pure. */
export function ageGroupOf(age: number | undefined): AgeGroup {
  if (age === undefined) return 'unknown';
  if (age < 13) return 'child';
  if (age < 20) return 'teen';
  if (age < 65) return 'adult';
  return 'senior';
}

/**
 * The status `person` should have, or undefined when its status already says so. Pure. Only a change of what is
 * computed writes a new status, so the controller's own status write (which bumps `metadata.version`) does not cause
 * another one.
 */
export function nextStatus(person: Person, now: Date): PersonStatus | undefined {
  const current = person.status as Partial<PersonStatus> | undefined;
  const ageGroup = ageGroupOf(person.spec?.age);
  const ready = {
    type: 'Ready',
    status: 'True' as const,
    reason: 'AgeGroupComputed',
    message: `${person.spec?.name ?? person.metadata.name} is in age group ${ageGroup}`,
  };
  const previous = current?.conditions?.find((c) => c.type === 'Ready');
  const upToDate =
    current?.ageGroup === ageGroup &&
    previous?.status === ready.status &&
    previous.reason === ready.reason &&
    previous.message === ready.message;
  if (upToDate) return undefined;
  const lastTransitionTime = previous?.status === ready.status ? previous.lastTransitionTime : now.toISOString();
  return {
    ageGroup,
    conditions: [{ ...ready, lastTransitionTime }],
    observedVersion: person.metadata.version ?? 0,
  };
}

export async function reconcilePerson({ name }: ReconcileRequest, { client, logger }: ReconcileContext): Promise<void> {
  const person = await client.fetch<Person>(personModel, name);
  if (!person) return;
  const outcome = await handleFinalizer(client, person, FAREWELL_FINALIZER, (leaving) => {
    // debug: a deletecollection of 100,000 persons must not write 100,000 info lines.
    logger.debug(`farewell, ${leaving.spec?.name ?? name}`, { person: name });
  });
  if (outcome.deleting) return;
  const status = nextStatus(outcome.object, new Date());
  if (status) await client.updateStatus({ ...outcome.object, status: { ...status } });
}

export const personReconciler: ReconcilerDefinition = {
  name: 'person-status',
  model: personModel,
  // A reconcile waits for a commit per write; the writes of all waiting workers share each one, so with this many the
  // controller keeps up with creates at full speed (npm run bench:controllers).
  workers: 128,
  reconcile: reconcilePerson,
};
