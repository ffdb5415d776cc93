/** How objects are printed: a table, YAML or JSON. Pure. */
import type { ExtensionObject } from '@svc/client';
import { stringify } from 'yaml';

export type OutputFormat = 'table' | 'yaml' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'yaml', 'json'];

/** `5s`, `3m`, `2h`, `4d`: the age of a timestamp, as kubectl shows it. */
export function age(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

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

/** NAME, AGE, and STATUS `Terminating` for an object being deleted. */
export function objectTable(objects: readonly ExtensionObject[], now: Date): string {
  const rows = objects.map((o) => [
    o.metadata.name,
    o.metadata.deletionTimestamp ? 'Terminating' : '',
    age(o.metadata.creationTimestamp, now),
  ]);
  const anyStatus = rows.some((r) => r[1] !== '');
  const header = anyStatus ? ['NAME', 'STATUS', 'AGE'] : ['NAME', 'AGE'];
  return table([header, ...rows.map((r) => (anyStatus ? r : [r[0]!, r[2]!]))]);
}

/** One object, or a list of them as a Kubernetes `List` (which `svc apply -f` reads back). */
export function render(value: ExtensionObject | ExtensionObject[], format: 'yaml' | 'json'): string {
  const document = Array.isArray(value) ? { apiVersion: 'v1', kind: 'List', items: value } : value;
  return format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document);
}
