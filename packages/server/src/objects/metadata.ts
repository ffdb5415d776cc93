/**
 * Checks of the `metadata` a client sends (docs/api.md "Objects"). Pure: nothing is filled in here. Server-owned fields
 * (creationTimestamp, version on create, deletionTimestamp, uid, resourceVersion) are not rejected because the
 * service overwrites them; fields it does not know are left alone, as Kubernetes clients send some (namespace …).
 */
import type { FieldError } from '@svc/plugin-api';
import { validateAnnotations, validateLabels } from './labels.js';
import { qualifiedNameProblems, validateGenerateName, validateName } from './names.js';
import { joinPointer } from './pointer.js';

export {
  isWellKnownLabelKey,
  type LabelOptions,
  MAX_ANNOTATIONS_BYTES,
  MAX_LABELS,
  MAX_LABELS_BYTES,
  RESERVED_LABEL_PREFIXES,
  validateAnnotations,
  validateLabels,
  WELL_KNOWN_LABEL_KEYS,
} from './labels.js';
export { generateName, MAX_NAME_LENGTH, NAME_PATTERN, validateGenerateName, validateName } from './names.js';
export { escapePointerToken, joinPointer } from './pointer.js';

export type WriteMode = 'create' | 'update';

export interface MetadataOptions {
  /** Default true; false for objects a plugin declares in its `extensions/` folder. */
  allowUnprefixedLabels?: boolean;
  /** Pointer of the metadata object; `/metadata` unless the object is nested. */
  path?: string;
}

export function validateClientMetadata(meta: unknown, mode: WriteMode, options: MetadataOptions = {}): FieldError[] {
  const path = options.path ?? '/metadata';
  if (meta === undefined) return [{ path, message: 'is required' }];
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return [{ path, message: 'must be an object' }];
  const m = meta as Record<string, unknown>;
  const errors: FieldError[] = [...nameErrors(m, mode, path)];

  // The client's optimistic-lock version; absent on create is normal, a missing one on update is the API's 409.
  if (
    m.version !== undefined &&
    m.version !== null &&
    !(Number.isSafeInteger(m.version) && (m.version as number) >= 0)
  ) {
    errors.push({ path: joinPointer(path, 'version'), message: 'must be a non-negative integer' });
  }
  errors.push(...finalizerErrors(m.finalizers, joinPointer(path, 'finalizers')));
  errors.push(
    ...validateLabels(
      m.labels,
      { allowUnprefixed: options.allowUnprefixedLabels ?? true },
      joinPointer(path, 'labels'),
    ),
  );
  errors.push(...validateAnnotations(m.annotations, joinPointer(path, 'annotations')));
  return errors;
}

/** On create a name or a generateName is needed; an update always names an existing object. */
function nameErrors(m: Record<string, unknown>, mode: WriteMode, path: string): FieldError[] {
  const namePath = joinPointer(path, 'name');
  const generatePath = joinPointer(path, 'generateName');
  const errors: FieldError[] = [];
  const hasName = m.name !== undefined && m.name !== null && m.name !== '';
  const hasGenerate = m.generateName !== undefined && m.generateName !== null && m.generateName !== '';
  if (hasName) errors.push(...validateName(m.name, namePath));
  else if (mode === 'create' && !hasGenerate)
    errors.push({ path: namePath, message: 'is required (or metadata.generateName)' });
  else if (mode === 'update') errors.push({ path: namePath, message: 'is required' });
  if (hasGenerate) errors.push(...validateGenerateName(m.generateName, generatePath));
  return errors;
}

/** `own` followed by those of `added` it lacks (a finalizer list is a set, kept in the order it was given). Pure. */
export function withFinalizers(own: readonly string[] | undefined, added: readonly string[]): string[] {
  if (!own?.length) return [...added];
  return [...own, ...added.filter((finalizer) => !own.includes(finalizer))];
}

/** Problems with a list of finalizers (an object's, or a model's `finalizers`), at JSON pointers under `path`. */
export function finalizerErrors(finalizers: unknown, path: string): FieldError[] {
  if (finalizers === undefined) return [];
  if (!Array.isArray(finalizers)) return [{ path, message: 'must be an array of strings' }];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  finalizers.forEach((finalizer, index) => {
    const at = joinPointer(path, index);
    if (typeof finalizer !== 'string') {
      errors.push({ path: at, message: 'must be a string' });
      return;
    }
    if (seen.has(finalizer)) errors.push({ path: at, message: `duplicate finalizer "${finalizer}"` });
    seen.add(finalizer);
    errors.push(...qualifiedNameProblems(finalizer).map((message) => ({ path: at, message })));
  });
  return errors;
}
