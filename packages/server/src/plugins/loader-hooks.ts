/**
 * Module resolution hooks for plugin code (registered once per process by module-loader.ts; Node runs them on its
 * loader thread). Node cannot unload an ES module, and caches modules by URL, so a plugin's code is loaded under URLs
 * that carry its code generation (`?svc-plugin-gen=<fingerprint>`):
 * - the entry is imported with the generation; every file it imports inside the plugin's folder, its own
 *   `node_modules` included, inherits it, so new code on disk gets new URLs all the way down and an upgraded plugin
 *   runs all of its new code, the packages it ships too (a CommonJS package's cache by file name is emptied by
 *   module-loader.ts). The entry's URL also names the plugin's folder (`svc-plugin-root`, read here and dropped);
 *   packages found above that folder (a folder plugin inside a repository) keep their plain URLs, shared as Node
 *   shares them;
 * - unchanged code keeps its URLs, so stopping and starting a plugin reuses the modules already loaded instead of
 *   piling up copies: memory grows with the number of code versions, not with the number of restarts;
 * - `@svc/plugin-api` always resolves to the host's own copy, so an installed plugin needs no node_modules for it
 *   and every plugin sees the API of the host it runs in.
 */
export const GENERATION_PARAM = 'svc-plugin-gen';
/** On the entry's URL only: the plugin's folder, as a file URL ending in `/`. */
export const ROOT_PARAM = 'svc-plugin-root';
/** The bare imports every plugin gets from the host, never from its own node_modules (`svc plugin pack` checks). */
export const HOST_PROVIDED_MODULES: readonly string[] = ['@svc/plugin-api'];

interface ResolveContext {
  parentURL?: string;
  conditions: string[];
  importAttributes?: Record<string, string>;
}
interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<ResolveResult>;

let pluginApiUrl: string | undefined;
/** Each generation's plugin folder (a generation fingerprints one folder's files, its path included). */
const roots = new Map<string, string>();

export function initialize(data: { pluginApiUrl: string }): void {
  pluginApiUrl = data.pluginApiUrl;
}

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<ResolveResult> {
  if (specifier.includes(`${ROOT_PARAM}=`)) {
    // The entry (as a URL, or as a path with its query when a test runner hands it on).
    const resolved = await next(specifier, context);
    const entry = new URL(resolved.url);
    const generation = entry.searchParams.get(GENERATION_PARAM);
    const root = entry.searchParams.get(ROOT_PARAM);
    if (generation && root) roots.set(generation, root);
    entry.searchParams.delete(ROOT_PARAM);
    return { ...resolved, url: entry.href };
  }
  const generation = generationOf(context.parentURL);
  if (generation === undefined) return next(specifier, context);
  if (specifier === '@svc/plugin-api' && pluginApiUrl)
    return { url: pluginApiUrl, format: 'module', shortCircuit: true };
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith('file:')) return resolved;
  const root = roots.get(generation);
  const plain = resolved.url.split('?')[0] ?? '';
  // Outside the plugin's folder (when it is known), or in a node_modules when it is not: Node's own URL.
  if (root ? !plain.startsWith(root) : plain.includes('/node_modules/')) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set(GENERATION_PARAM, generation);
  return { ...resolved, url: url.href };
}

function generationOf(parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith('file:') || !parentURL.includes(GENERATION_PARAM)) return undefined;
  return new URL(parentURL).searchParams.get(GENERATION_PARAM) ?? undefined;
}
