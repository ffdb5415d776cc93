import type { ExtensionObject } from '@svc/plugin-api';
import type { ModelIndex } from '../index/model-index.js';
import type { FieldRequirement, LabelRequirement } from '../index/selectors.js';

/**
 * A watcher's (or reconciler's) label and field selectors as one value: `all` when there are none, a `key` that is
 * equal for equal selectors (so a change computes each distinct selection once), and a matcher on single objects.
 */
export interface Selection {
  readonly all: boolean;
  readonly key: string;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
  matches(object: ExtensionObject): boolean;
}

export function selectionOf(
  index: ModelIndex,
  labels: readonly LabelRequirement[],
  fields: readonly FieldRequirement[],
): Selection {
  // Unknown fields are a 400 now, not an exception on the first event.
  index.validate({ fields, sort: [] });
  return {
    all: labels.length === 0 && fields.length === 0,
    key: JSON.stringify([labels, fields]),
    labels,
    fields,
    matches: (object) => index.matches(object, labels, fields),
  };
}
