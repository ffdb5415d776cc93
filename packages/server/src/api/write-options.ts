import { badRequest } from '@svc/plugin-api';
import type { NormalizedModel } from '../objects/model-definition.js';
import type { WriteOptions } from '../registry/object-service.js';
import { actorOf, type HttpContext } from './http-context.js';

/**
 * The options of a write as the request states them: its caller, `dryRun=All` (as Kubernetes: validated, admitted
 * and answered, never stored; any other value is a 400), and for a delete the body's DeleteOptions (Kubernetes
 * clients send `{"kind":"DeleteOptions","preconditions":{…},"dryRun":["All"]}`, or nothing).
 */
export function writeOptionsOf(ctx: HttpContext, subresource?: 'status'): WriteOptions {
  const options: WriteOptions = { actor: actorOf(ctx) };
  if (subresource) options.subresource = subresource;
  const deleteOptions = ctx.request.method === 'DELETE' ? readDeleteOptions(ctx.request.body) : undefined;
  if (dryRunOf(ctx.request.target.query.dryRun, 'the query parameter dryRun') || deleteOptions?.dryRun) {
    options.dryRun = true;
  }
  if (deleteOptions?.preconditions) options.preconditions = deleteOptions.preconditions;
  return options;
}

/** A DELETE's options: those of any write, and the choices of the model's own delete parameters, as annotations. */
export function deleteOptionsOf(ctx: HttpContext, model: NormalizedModel): WriteOptions {
  const options = writeOptionsOf(ctx);
  if (!model.deleteParameters?.length) return options;
  const annotations: Record<string, string> = {};
  for (const parameter of model.deleteParameters) {
    const value = ctx.request.target.query[parameter.name] ?? parameter.default;
    if (typeof value !== 'string' || !parameter.values.includes(value)) {
      throw badRequest(
        `the query parameter ${parameter.name} of a ${model.kind} DELETE must be one of ${parameter.values.join(', ')}` +
          ` (given once; ${parameter.default} when absent), not ${JSON.stringify(value)}`,
      );
    }
    annotations[parameter.annotation] = value;
  }
  return { ...options, annotations };
}

/**
 * Whether the request asks for a dry run: `dryRun=All` in the query, or for a DELETE a body object's `dryRun: ["All"]`
 * (DeleteOptions). Any other value is a 400. For routes that honour dry runs but take no DeleteOptions (plugins').
 */
export function dryRunRequested(ctx: HttpContext): boolean {
  const body = ctx.request.body;
  const bodyDryRun =
    ctx.request.method === 'DELETE' && typeof body === 'object' && body !== null && 'dryRun' in body
      ? dryRunOf((body as { dryRun: unknown }).dryRun, 'DeleteOptions dryRun')
      : false;
  return dryRunOf(ctx.request.target.query.dryRun, 'the query parameter dryRun') || bodyDryRun;
}

function dryRunOf(value: unknown, where: string): boolean {
  if (value === undefined) return false;
  const values = Array.isArray(value) ? value : [value];
  if (values.length > 0 && values.every((v) => v === 'All')) return true;
  throw badRequest(`${where} may only be "All" (validate, admit and answer the write without storing it)`);
}

function readDeleteOptions(
  body: unknown,
): { dryRun: boolean; preconditions?: WriteOptions['preconditions'] } | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('a DELETE body must be a DeleteOptions object');
  const { dryRun, preconditions } = body as { dryRun?: unknown; preconditions?: unknown };
  const result: { dryRun: boolean; preconditions?: WriteOptions['preconditions'] } = {
    dryRun: dryRunOf(dryRun, 'DeleteOptions dryRun'),
  };
  if (preconditions !== undefined && preconditions !== null) {
    if (typeof preconditions !== 'object' || Array.isArray(preconditions)) {
      throw badRequest('DeleteOptions preconditions must be an object with uid and/or resourceVersion');
    }
    const { uid, resourceVersion } = preconditions as { uid?: unknown; resourceVersion?: unknown };
    for (const [name, value] of [
      ['uid', uid],
      ['resourceVersion', resourceVersion],
    ] as const) {
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw badRequest(`DeleteOptions preconditions.${name} must be a string`);
      }
    }
    result.preconditions = {
      ...(typeof uid === 'string' ? { uid } : {}),
      ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
    };
  }
  return result;
}
