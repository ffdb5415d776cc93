import type { ResourceRef } from '@svc/client';

export { titleOf } from './titles.js';

import { CONSOLE_API, client } from '@svc/console-shared';

/** A model as `GET models` describes it to the signed-in user (docs/api.md "Console endpoints"). */
export interface BrowsableModel extends ResourceRef {
  kind: string;
  singular: string;
  apiVersion: string;
  plugin?: string;
  shortNames: string[];
  statusSubresource: boolean;
  /** The verbs the server allows the user on the model's objects. */
  verbs: string[];
  indexes: Array<{ name: string; unique: boolean; computed: boolean }>;
  printerColumns: Array<{ name: string; type: string; jsonPath: string; description?: string; priority?: number }>;
  schema?: Record<string, unknown>;
}

/** The core group has no name; its models are at `/console/resources/core/<version>/<plural>`. */
export const CORE_SEGMENT = 'core';

export const groupSegment = (group: string) => (group === '' ? CORE_SEGMENT : group);
export const groupOfSegment = (segment: string) => (segment === CORE_SEGMENT ? '' : segment);

/** The models the signed-in user may browse, asked of the server (it decides; the console matches no rules). */
export async function loadModels(): Promise<BrowsableModel[]> {
  const answer = await client.request<{ items: BrowsableModel[] }>('GET', `${CONSOLE_API}/models`);
  return answer.items;
}

export async function findModel(group: string, version: string, plural: string): Promise<BrowsableModel | undefined> {
  return (await loadModels()).find((m) => m.group === group && m.version === version && m.plural === plural);
}

export const may = (model: BrowsableModel | undefined, verb: string) => model?.verbs.includes(verb) ?? false;

/** The value a printer column's `.a.b[0].c` path reads. */
export function readJsonPath(object: unknown, jsonPath: string): unknown {
  let value: unknown = object;
  for (const step of jsonPath.slice(1).split('.')) {
    const [key, ...indexes] = step.split('[');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key!] : undefined;
    for (const index of indexes) value = Array.isArray(value) ? value[Number(index.slice(0, -1))] : undefined;
  }
  return value;
}

/** The index a printer column can be sorted by: one declared on the field it shows. */
export function sortIndexOf(model: BrowsableModel, jsonPath: string): string | undefined {
  const field = jsonPath.slice(1);
  return model.indexes.find((i) => !i.computed && i.name === field)?.name;
}
