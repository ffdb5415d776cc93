/**
 * Which plugin owns an object. The host sets the owner label on every object a plugin declares in `extensions/`; it
 * is what keeps a declared object from taking over one someone else made, and what says which roles are a plugin's
 * own. So only the host writes it (docs/api.md "Objects"): a user can neither set, change nor remove it, and a plugin
 * can set only its own name, on objects it creates.
 */
import { type ExtensionObject, PLUGIN_NAME_LABEL } from '@svc/plugin-api';

/** The plugin that owns `object`, or undefined when none does (it was made through the API or by the service). */
export function ownerOf(object: Pick<ExtensionObject, 'metadata'> | undefined): string | undefined {
  return object?.metadata.labels?.[PLUGIN_NAME_LABEL];
}

/** How an owner reads in a message: `plugin "people"`, or what an object without one is. */
export function describeOwner(owner: string | undefined): string {
  return owner === undefined ? 'no plugin (it was created through the API)' : `plugin "${owner}"`;
}

/** Who writes: a user over HTTP, a plugin (its client, or the host for its `extensions/`), or the service. */
export type Writer = { kind: 'user' } | { kind: 'plugin'; plugin: string } | { kind: 'system' };

/**
 * Why `writer` may not write the owner label as `next` carries it over `prev` (undefined on create), or undefined
 * when it may. The service may do anything; everyone else keeps the stored value, and a plugin may name itself on
 * an object it creates.
 */
export function ownerLabelProblem(
  writer: Writer,
  next: Pick<ExtensionObject, 'metadata'>,
  prev: Pick<ExtensionObject, 'metadata'> | undefined,
): string | undefined {
  if (writer.kind === 'system') return undefined;
  const before = prev === undefined ? undefined : ownerOf(prev);
  const after = ownerOf(next);
  if (after === before) return undefined;
  if (writer.kind === 'plugin' && prev === undefined && after === writer.plugin) return undefined;
  const what = prev === undefined ? 'set' : after === undefined ? 'removed' : 'changed';
  return `label ${PLUGIN_NAME_LABEL} says which plugin declared an object; svc sets it, and it cannot be ${what} through the API`;
}
