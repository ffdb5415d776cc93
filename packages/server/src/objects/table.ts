/**
 * The meta.k8s.io Table of a model's objects, what `kubectl get` prints (docs/api.md "Tables"): Name, the model's
 * declared printer columns, then Age, with cells as the API server computes them for a custom resource. Pure, given
 * the clock.
 */
import type { ExtensionObject, PrinterColumn } from '@svc/plugin-api';
import type { NormalizedModel } from './model-definition.js';
import { readJsonPath } from './printer-columns.js';

export type TableVersion = 'v1' | 'v1beta1';
/** What each row carries besides its cells (the `includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  version: TableVersion;
  includeObject: IncludeObject;
  /** False for the watch events after the first, which the API server sends without column definitions. */
  withColumns: boolean;
  /** The list's metadata (`resourceVersion`, `continue`, `remainingItemCount`). */
  listMeta?: Record<string, unknown>;
  now: Date;
}

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'The name of the object, unique among the objects of its model.',
  priority: 0,
};
const AGE_COLUMN = {
  name: 'Age',
  type: 'date',
  format: '',
  description: 'How long ago the object was created (metadata.creationTimestamp).',
  priority: 0,
};

export function columnDefinitions(columns: readonly PrinterColumn[]) {
  const declared = columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority ?? 0,
  }));
  return [NAME_COLUMN, ...declared, AGE_COLUMN];
}

export function toTable(
  model: Pick<NormalizedModel, 'printerColumns'>,
  objects: readonly ExtensionObject[],
  options: TableOptions,
) {
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.listMeta ?? {},
  };
  if (options.withColumns) table.columnDefinitions = columnDefinitions(model.printerColumns);
  table.rows = objects.map((object) => {
    const cells = [
      object.metadata.name,
      ...model.printerColumns.map((c) => cellOf(c.type, readJsonPath(object, c.jsonPath), options.now)),
      cellOf('date', object.metadata.creationTimestamp, options.now),
    ];
    const row: Record<string, unknown> = { cells };
    if (options.includeObject === 'Object') row.object = object;
    else if (options.includeObject === 'Metadata') {
      row.object = {
        kind: 'PartialObjectMetadata',
        apiVersion: `meta.k8s.io/${options.version}`,
        metadata: object.metadata,
      };
    }
    return row;
  });
  return table;
}

/** A cell as the API server's custom resource table converter makes it: typed, or null when missing or mistyped. */
export function cellOf(type: PrinterColumn['type'], value: unknown, now: Date): unknown {
  if (value === undefined || value === null) return type === 'date' ? '<unknown>' : null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'object' ? null : String(value);
    case 'date': {
      const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      return Number.isNaN(at) ? '<invalid>' : humanDuration(now.getTime() - at);
    }
  }
}

/** Kubernetes' `duration.HumanDuration`: `45s`, `3m20s`, `2h5m`, `3d4h`, `400d`, `2y10d`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to two seconds in the future counts as now: clocks differ a little.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${days / 365}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}
