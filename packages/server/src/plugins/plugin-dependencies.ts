/**
 * Questions about the plugins one requires (`spec.pluginDependencies`: name → semver range of its version), as pure
 * functions over the host's records, so the host and the lifecycle ask them the same way.
 */
import semver from 'semver';

/** What dependency questions read of a plugin. */
export interface DependencyNode {
  name: string;
  manifest: { spec: { version: string; pluginDependencies?: Record<string, string> } };
}

/** Names in an order where every plugin comes after the plugins it requires (cycles keep their name order). */
export function startOrder(records: ReadonlyMap<string, DependencyNode>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (order.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const dep of Object.keys(records.get(name)?.manifest.spec.pluginDependencies ?? {})) {
      if (records.has(dep)) visit(dep);
    }
    order.push(name);
  };
  for (const name of [...records.keys()].sort()) visit(name);
  return order;
}

/**
 * Plugins `spec` requires that are not running (or, with `installedOnly`, not installed) at a version in range, as
 * `name@range`.
 */
export function unmetDependencies(
  spec: DependencyNode['manifest']['spec'],
  records: ReadonlyMap<string, DependencyNode>,
  isRunning: (name: string) => boolean,
  { installedOnly = false } = {},
): string[] {
  return Object.entries(spec.pluginDependencies ?? {})
    .filter(([dep, range]) => {
      const other = records.get(dep);
      if (!other || !semver.satisfies(other.manifest.spec.version, range)) return true;
      return !installedOnly && !isRunning(dep);
    })
    .map(([dep, range]) => `${dep}@${range}`);
}

/** Running plugins among `records` that require plugin `name`, in the records' order. */
export function runningDependents(
  name: string,
  records: Iterable<DependencyNode>,
  isRunning: (name: string) => boolean,
): string[] {
  return [...records]
    .filter((r) => isRunning(r.name) && r.manifest.spec.pluginDependencies?.[name] !== undefined)
    .map((r) => r.name);
}
