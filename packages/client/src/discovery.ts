import type { Transport } from './http.js';
import type { ResourceRef } from './types.js';

/** A resource served, as discovery describes it. */
export interface ResourceInfo extends ResourceRef {
  kind: string;
  singular: string;
  shortNames: string[];
  verbs: string[];
  /** Subresources served, such as `status`. */
  subresources: string[];
}

interface ApiResource {
  name: string;
  singularName?: string;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

/**
 * Every resource served, from the legacy discovery documents (`/api`, `/apis`, then each group version's
 * APIResourceList), preferred versions first, so a name found in several versions resolves to the preferred one.
 */
export async function discoverResources(transport: Transport): Promise<ResourceInfo[]> {
  const core = await transport.json<{ versions?: string[] }>('GET', '/api');
  const groups = await transport.json<{
    groups?: Array<{ name: string; preferredVersion?: { version: string }; versions: Array<{ version: string }> }>;
  }>('GET', '/apis');
  const groupVersions: Array<{ group: string; version: string }> = (core.versions ?? []).map((version) => ({
    group: '',
    version,
  }));
  for (const group of groups.groups ?? []) {
    const preferred = group.preferredVersion?.version;
    const versions = group.versions
      .map((v) => v.version)
      .sort((a, b) => Number(b === preferred) - Number(a === preferred));
    for (const version of versions) groupVersions.push({ group: group.name, version });
  }
  const lists = await Promise.all(
    groupVersions.map(async ({ group, version }) => {
      const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
      const list = await transport.json<{ resources?: ApiResource[] }>('GET', path);
      return resourcesOf(group, version, list.resources ?? []);
    }),
  );
  return lists.flat();
}

/** The resources of one APIResourceList, with `<plural>/<sub>` entries folded into their resource. Pure. */
export function resourcesOf(group: string, version: string, entries: readonly ApiResource[]): ResourceInfo[] {
  const main = entries.filter((e) => !e.name.includes('/'));
  return main.map((e) => ({
    group,
    version,
    plural: e.name,
    kind: e.kind,
    singular: e.singularName || e.kind.toLowerCase(),
    shortNames: e.shortNames ?? [],
    verbs: e.verbs ?? [],
    subresources: entries.filter((s) => s.name.startsWith(`${e.name}/`)).map((s) => s.name.slice(e.name.length + 1)),
  }));
}

/**
 * The resource a person means by `name`: a plural, singular, kind or short name, case-insensitive, optionally
 * qualified by its group (`persons.people.svc.run`, as kubectl writes it). The first match in discovery order. Pure.
 */
export function findResource(resources: readonly ResourceInfo[], name: string): ResourceInfo | undefined {
  const wanted = name.toLowerCase();
  const names = (r: ResourceInfo) => [r.plural, r.singular, r.kind.toLowerCase(), ...r.shortNames];
  return (
    resources.find((r) => names(r).includes(wanted)) ??
    resources.find((r) => r.group !== '' && names(r).some((n) => wanted === `${n}.${r.group}`))
  );
}

/** Every name a resource can be called by: for suggestions when a name is not found. Pure. */
export function resourceNames(resources: readonly ResourceInfo[]): string[] {
  return [...new Set(resources.flatMap((r) => [r.plural, r.singular, ...r.shortNames]))].sort();
}
