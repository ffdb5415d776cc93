/** How the console names models in headings. Pure. */

/**
 * A heading for a model's objects: the kind in words with the plural's ending (`RoleBinding`, `rolebindings` →
 * "Role bindings"), or the plural capitalised when it does not extend the kind.
 */
export function titleOf(model: { kind: string; plural: string }): string {
  const kind = model.kind.toLowerCase();
  if (!model.plural.startsWith(kind)) return model.plural.charAt(0).toUpperCase() + model.plural.slice(1);
  const words = model.kind.replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return `${words.charAt(0)}${words.slice(1).toLowerCase()}${model.plural.slice(kind.length)}`;
}
