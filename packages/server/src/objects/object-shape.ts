/**
 * The whole check of an object body before create or update: a JSON object of the route's model, client metadata,
 * then the model's schema. All problems are collected so a client can fix them in one go.
 */
import { badRequest, type ExtensionObject, type FieldError, invalid } from '@svc/plugin-api';
import { validateClientMetadata, type WriteMode } from './metadata.js';
import type { NormalizedModel } from './model-definition.js';

export interface ShapeOptions {
  /** Default `create`: a name or generateName is needed; on `update` a name is. */
  mode?: WriteMode;
  /** Default true; false for objects a plugin declares in its `extensions/` folder. */
  allowUnprefixedLabels?: boolean;
}

export function checkObjectShape(body: unknown, model: NormalizedModel, options: ShapeOptions = {}): FieldError[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return [{ path: '', message: `must be a JSON object (a ${model.kind})` }];
  }
  const object = body as Record<string, unknown>;
  const errors: FieldError[] = [
    ...expectEqual(object.apiVersion, model.apiVersion, '/apiVersion'),
    ...expectEqual(object.kind, model.kind, '/kind'),
    ...validateClientMetadata(object.metadata, options.mode ?? 'create', {
      allowUnprefixedLabels: options.allowUnprefixedLabels ?? true,
    }),
    // The schema also fills in its defaults, so it runs even when the metadata is wrong: every error is reported.
    ...model.validate(object),
  ];
  return errors;
}

/** Throws the API's 400s: BadRequest when the body is not an object at all, Invalid for field errors. */
export function assertObjectShape(
  body: unknown,
  model: NormalizedModel,
  options: ShapeOptions = {},
): asserts body is ExtensionObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object (a ${model.kind})`);
  }
  const errors = checkObjectShape(body, model, options);
  if (errors.length === 0) return;
  const name = (body as { metadata?: { name?: unknown } }).metadata?.name;
  const what = typeof name === 'string' && name ? `${model.kind} "${name}"` : model.kind;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw invalid(`${what} is invalid: ${first.path || '/'}: ${first.message}${more}`, errors);
}

function expectEqual(actual: unknown, expected: string, path: string): FieldError[] {
  if (actual === expected) return [];
  if (actual === undefined) return [{ path, message: `is required; expected "${expected}"` }];
  return [{ path, message: `must be "${expected}" (got ${JSON.stringify(actual)})` }];
}
