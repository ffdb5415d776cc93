/**
 * The Kubernetes media types a client may ask for in `Accept` (docs/api.md "Version and discovery", "Tables"):
 * `application/json;g=<group>;v=<version>;as=<kind>` asks for the response as another kind, such as an aggregated
 * discovery list or a meta.k8s.io Table. Pure.
 */

export interface AcceptedType {
  /** `application/json`, `*\/*`, … lowercased. */
  type: string;
  /** The media type's parameters, keys lowercased (`g`, `v`, `as`, `profile`, `q`). */
  params: Record<string, string>;
}

/** The entries of an `Accept` header, in the order given (the order Kubernetes clients state their preference in). */
export function parseAccept(accept: string | undefined): AcceptedType[] {
  if (!accept) return [];
  return accept.split(',').flatMap((entry) => {
    const [type, ...rest] = entry.split(';');
    const name = type!.trim().toLowerCase();
    if (name === '') return [];
    const params: Record<string, string> = {};
    for (const param of rest) {
      const at = param.indexOf('=');
      if (at > 0)
        params[param.slice(0, at).trim().toLowerCase()] = param
          .slice(at + 1)
          .trim()
          .replace(/^"|"$/g, '');
    }
    return [{ type: name, params }];
  });
}

/**
 * The first JSON entry of `accept` that asks for a kind as one of `wanted` (`{g, v, as}`), or undefined when the
 * client asks for none of them before plain JSON (or at all). An entry in another encoding (protobuf) is skipped.
 */
export function negotiateAs<T extends { g: string; v: string; as: string }>(
  accept: string | undefined,
  wanted: readonly T[],
): T | undefined {
  // The common case (no kind asked for) costs one search on the hot path of every get and list.
  if (accept === undefined || !accept.includes('as=')) return undefined;
  for (const entry of parseAccept(accept)) {
    if (entry.type !== 'application/json') continue;
    const { g, v, as } = entry.params;
    if (as === undefined) return undefined;
    const match = wanted.find((w) => w.g === g && w.v === v && w.as === as);
    if (match) return match;
  }
  return undefined;
}
