/** How objects are printed: a table, YAML or JSON. Pure. */

import type { ExtensionObject } from '@svc/client';
import { KIND } from '@svc/plugin-api';
import { stringify } from 'yaml';

export type OutputFormat = 'table' | 'yaml' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'yaml', 'json'];

/** Columns padded to their widest cell, separated by three spaces. */
export function table(rows: readonly string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

/** The part of a `meta.k8s.io` Table a terminal shows. */
export interface ServerTable {
  columnDefinitions?: Array<{ name: string; priority?: number }>;
  rows?: Array<{ cells: unknown[]; object?: { metadata?: { deletionTimestamp?: string } } }>;
}

/**
 * A server's Table as text, as kubectl prints it: the priority-0 columns, upper-cased headers, empty cells for
 * nothing. Pure.
 */
export function serverTableText(answer: ServerTable): string {
  const columns = (answer.columnDefinitions ?? []).map((c, i) => ({ ...c, i })).filter((c) => !c.priority);
  const cellText = (cell: unknown) => (cell === null || cell === undefined ? '' : String(cell));
  return table([
    columns.map((c) => c.name.toUpperCase()),
    ...(answer.rows ?? []).map((row) => columns.map((c) => cellText(row.cells[c.i]))),
  ]);
}

/** One object, or a list of them as a Kubernetes `List` (which `svc apply -f` reads back). */
export function render(value: ExtensionObject | ExtensionObject[], format: 'yaml' | 'json'): string {
  const document = Array.isArray(value) ? { apiVersion: 'v1', kind: KIND.List, items: value } : value;
  return format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document);
}
