import { ApiError, alreadyExists, conflict, notFound } from '@svc/plugin-api';
import type { NormalizedModel } from '../objects/model-definition.js';
import { UniqueClaimError } from '../store/types.js';

/** The errors the object service's writes end in, worded once. */

/**
 * Another writer (a replica) committed the object between this write's read and its commit: a 409 to a caller, and the
 * signal on which a patch applies itself again to the new state.
 */
export class LostRace extends ApiError {
  constructor(model: Pick<NormalizedModel, 'kind'>, name: string) {
    super('Conflict', `${model.kind} "${name}" was changed by another writer; get it again and retry`);
  }
}

export function objectNotFound(model: Pick<NormalizedModel, 'kind' | 'apiVersion'>, name: string): ApiError {
  return notFound(`${model.kind} "${name}" not found in ${model.apiVersion}`);
}

export function nameTaken(model: Pick<NormalizedModel, 'kind'>, name: string): ApiError {
  return alreadyExists(`${model.kind} "${name}" already exists`);
}

/** A unique value another server's object claimed first: the same 409 as one this process's index refuses. */
export function claimRefused(model: Pick<NormalizedModel, 'kind'>, error: unknown): unknown {
  if (!(error instanceof UniqueClaimError)) return error;
  const { index, value } = error.claim;
  return conflict(
    `${model.kind} "${error.key}": unique index "${index}" already holds value "${value}" (for another object)`,
  );
}
