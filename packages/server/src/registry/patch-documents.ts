import { badRequest, conflict, type ExtensionObject } from '@svc/plugin-api';
import fastJsonPatch from 'fast-json-patch';
import { applyMergePatch } from './merge-patch.js';

/** A patch as the in-process client and the HTTP API take it: JSON Patch (RFC 6902) or JSON Merge Patch (RFC 7386). */
export type PatchKind = 'json' | 'merge';

/**
 * Checks a patch document and returns the function that applies it to the current object. One source for the
 * generated PATCH route and `ctx.client.patch`, so both refuse the same documents with the same 4xx.
 */
export function patchFunction(kind: PatchKind, body: unknown): (current: ExtensionObject) => unknown {
  if (kind === 'merge') {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('a merge patch must be a JSON object');
    }
    return (current) => applyMergePatch(current, body);
  }
  if (!Array.isArray(body)) throw badRequest('a JSON Patch must be an array of operations');
  const invalidOp = fastJsonPatch.validate(body as fastJsonPatch.Operation[]);
  if (invalidOp) throw badRequest(`invalid JSON Patch operation ${invalidOp.index}: ${invalidOp.message}`);
  return (current) => {
    try {
      return fastJsonPatch.applyPatch(current, body as fastJsonPatch.Operation[], true, true, true).newDocument;
    } catch (error) {
      const e = error as { name?: string; message: string; index?: number };
      if (e.name === 'TEST_OPERATION_FAILED') throw conflict(`JSON Patch test operation ${e.index} failed`);
      throw badRequest(`JSON Patch could not be applied: ${e.message.split('\n')[0]}`);
    }
  };
}
