/**
 * RFC 7386 JSON Merge Patch. Written by hand because the RFC gives the whole algorithm in ten lines and the packages
 * for it do not refuse prototype keys; this one does (`__proto__`, `constructor`, `prototype` never become properties).
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (FORBIDDEN.has(key)) continue;
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
