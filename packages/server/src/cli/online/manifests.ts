/** Objects read from YAML files for `svc apply -f` and `svc delete -f`, and how apply compares them. Pure. */
import { KIND } from '@svc/plugin-api';
import { parseAllDocuments } from 'yaml';
import { CommandError } from './report.js';

export type Manifest = Record<string, unknown> & {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: Record<string, unknown>;
};

/** Fields svc owns: a file copied from `svc get -o yaml` carries them, and sending them back would be refused. */
const SERVER_OWNED = ['version', 'resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp', 'generation'];

/** Every object of a multi-document YAML text; a `kind: List` is read as its items. */
export function readManifests(text: string, source: string): Manifest[] {
  const objects: Manifest[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new CommandError(`${source}: ${document.errors[0]!.message}`);
    const value = document.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new CommandError(`${source}: each YAML document must be an object with apiVersion, kind and metadata`);
    }
    const object = value as Manifest;
    if (object.kind === KIND.List && Array.isArray(object.items)) objects.push(...(object.items as Manifest[]));
    else objects.push(object);
  }
  return objects.map((o) => withoutServerFields(o, source));
}

function withoutServerFields(object: Manifest, source: string): Manifest {
  const metadata = object.metadata;
  if (typeof metadata !== 'object' || metadata === null || typeof metadata.name !== 'string') {
    throw new CommandError(`${source}: every object needs metadata.name`);
  }
  const { status: _status, ...rest } = object;
  const kept = Object.fromEntries(Object.entries(metadata).filter(([key]) => !SERVER_OWNED.includes(key)));
  return { ...rest, metadata: kept };
}

/** Whether `stored` already has every value `wanted` gives (objects compared key by key, the rest as a whole). */
export function includes(stored: unknown, wanted: unknown): boolean {
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) {
    return JSON.stringify(stored) === JSON.stringify(wanted);
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
  return Object.entries(wanted).every(([key, value]) => includes((stored as Record<string, unknown>)[key], value));
}
