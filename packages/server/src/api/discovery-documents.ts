/**
 * Kubernetes' discovery documents built from the models served (docs/api.md "Version and discovery"): the legacy
 * APIVersions / APIGroupList / APIResourceList, and the aggregated APIGroupDiscoveryList (apidiscovery.k8s.io v2 and
 * v2beta1, one shape) that kubectl 1.30+ asks `/api` and `/apis` for. Pure.
 */
import type { NormalizedModel } from '../objects/model-definition.js';

type Model = Pick<
  NormalizedModel,
  'group' | 'version' | 'kind' | 'plural' | 'singular' | 'statusSubresource' | 'shortNames' | 'categories'
> & {
  /** The verbs served when not every verb of a model is (a review answered on create only). */
  verbs?: readonly string[];
};

export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const STATUS_VERBS = ['get', 'patch', 'update'];

/** The API groups served (the core group `""` left out), each with its versions (the first, in name order, preferred). */
export function groupsOf(models: readonly Model[]) {
  const names = [...new Set(models.map((m) => m.group).filter((g) => g !== ''))].sort();
  return names.map((name) => {
    const versions = versionsOf(models, name).map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions, preferredVersion: versions[0]! };
  });
}

export function versionsOf(models: readonly Model[], group: string): string[] {
  return [...new Set(models.filter((m) => m.group === group).map((m) => m.version))].sort();
}

function servedIn(models: readonly Model[], group: string, version: string): Model[] {
  return models
    .filter((m) => m.group === group && m.version === version)
    .sort((a, b) => a.plural.localeCompare(b.plural));
}

/** The APIResourceList of one group version; undefined when nothing is served there. */
export function resourceList(models: readonly Model[], group: string, version: string) {
  const served = servedIn(models, group, version);
  if (served.length === 0) return undefined;
  const resources = served.flatMap((model) => {
    const resource = {
      name: model.plural,
      singularName: model.singular,
      namespaced: false,
      kind: model.kind,
      verbs: model.verbs ?? VERBS,
      ...(model.shortNames.length > 0 ? { shortNames: model.shortNames } : {}),
      ...(model.categories.length > 0 ? { categories: model.categories } : {}),
    };
    if (!model.statusSubresource) return [resource];
    const status = { name: `${model.plural}/status`, singularName: '', namespaced: false, kind: model.kind };
    return [resource, { ...status, verbs: STATUS_VERBS }];
  });
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources,
  };
}

/**
 * The aggregated discovery list of `/api` (`core`: the core group only) or `/apis` (every other group), in the
 * apidiscovery.k8s.io `version` asked for (`v2` or `v2beta1`, the same shape). Versions newest first would need an
 * order of Kubernetes versions; svc lists them in name order, as the legacy documents do, the first preferred.
 */
export function aggregatedDiscovery(models: readonly Model[], root: 'core' | 'groups', version: 'v2' | 'v2beta1') {
  const groups =
    root === 'core' ? (models.some((m) => m.group === '') ? [''] : []) : groupsOf(models).map((g) => g.name);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((group) => ({
      // The core group's name is empty, and left out as the API server's omitempty does.
      metadata: { ...(group === '' ? {} : { name: group }), creationTimestamp: null },
      versions: versionsOf(models, group).map((v) => ({
        version: v,
        resources: servedIn(models, group, v).map(resourceDiscovery),
        freshness: 'Current',
      })),
    })),
  };
}

function resourceDiscovery(model: Model) {
  const responseKind = { group: model.group, version: model.version, kind: model.kind };
  return {
    resource: model.plural,
    responseKind,
    scope: 'Cluster',
    singularResource: model.singular,
    verbs: model.verbs ?? VERBS,
    ...(model.shortNames.length > 0 ? { shortNames: model.shortNames } : {}),
    ...(model.categories.length > 0 ? { categories: model.categories } : {}),
    ...(model.statusSubresource
      ? { subresources: [{ subresource: 'status', responseKind, verbs: STATUS_VERBS }] }
      : {}),
  };
}
