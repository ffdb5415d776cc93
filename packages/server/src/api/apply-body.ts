/**
 * Server-side apply's body, `application/apply-patch+yaml` (docs/api.md "Server-side apply"): read only on the route
 * that applies (the generated PATCH of an object); on every other route that media type is a 415 before a byte of
 * the body is read. JSON (what kubectl sends) is read as JSON, up to the JSON limit; anything else is YAML, read by
 * objects/untrusted-yaml.ts within its own, smaller limits. Either way the result then goes through the JSON parser,
 * so the same nesting, text and key checks apply.
 */
import { badRequest, payloadTooLarge, unsupportedMediaType } from '@svc/plugin-api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { duplicateJsonKey, jsonTextProblem } from '../objects/json-limits.js';
import { MAX_YAML_BYTES, readYamlDocument } from '../objects/untrusted-yaml.js';
import { BODY_LIMIT } from './body-limits.js';
import type { DynamicRouter } from './dynamic-router.js';
import { jsonBodyParser } from './json-body.js';

export const APPLY_TYPE = 'application/apply-patch+yaml';

/** The media type of a request, without parameters, lowercased ('' when none). */
export function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The refusal of an apply body sent to a route that does not apply, before it is read (app.ts's body checks). */
export function applyElsewhere<Ctx>(
  router: Pick<DynamicRouter<Ctx>, 'find'>,
  request: FastifyRequest,
): Error | undefined {
  if (mediaTypeOf(request) !== APPLY_TYPE) return undefined;
  if (router.find(request.method, request.target.routePath)?.route.acceptsApply) return undefined;
  return unsupportedMediaType(
    `${APPLY_TYPE} (server-side apply) is read only by PATCH on an object of a model, not by ${request.method} ${request.target.path}`,
  );
}

/** The body parser of APPLY_TYPE (registered with `parseAs: 'string'` and the JSON body limit). */
export function applyBodyParser(app: Pick<FastifyInstance, 'getDefaultJsonParser'>) {
  const json = jsonBodyParser(app);
  const parseJson = (request: FastifyRequest, text: string) =>
    new Promise<unknown>((resolve, reject) =>
      json(request, text, (error, body) => (error ? reject(error) : resolve(body))),
    );
  return async (request: FastifyRequest, body: string | Buffer): Promise<unknown> => {
    const text = body as string;
    const parsed = looksLikeJsonObject(text) ? parsedJson(text) : undefined;
    if (parsed === undefined) {
      if (Buffer.byteLength(text) > MAX_YAML_BYTES) {
        throw payloadTooLarge(
          `${WHAT} is larger than the ${MAX_YAML_BYTES / 1024} KiB accepted as YAML; as JSON (what kubectl sends), ` +
            `up to the ${BODY_LIMIT / 1024 / 1024} MiB of any body is accepted`,
        );
      }
      return parseJson(request, JSON.stringify(await readYamlDocument(text, { what: WHAT })));
    }
    // The result must be what reading it as YAML gives, and YAML refuses a key given twice.
    const duplicate = duplicateJsonKey(text);
    if (duplicate !== undefined)
      throw badRequest(`${WHAT}: the key ${JSON.stringify(duplicate)} is given more than once`);
    // Nothing the JSON parser refuses can be in it: keep the parse instead of parsing again.
    if (jsonTextProblem(text) === undefined && !MAY_POISON.test(text)) return parsed;
    return parseJson(request, text);
  };
}

const WHAT = 'the apply configuration';
/** What the JSON parser's prototype checks look for (`\u` could spell `__proto__`). */
const MAY_POISON = /__proto__|constructor|\\u/;

/** JSON text of an object (what kubectl sends), or a YAML flow mapping: worth a try as JSON. */
function looksLikeJsonObject(text: string): boolean {
  return /^\s*\{/.test(text.slice(0, 64)) && /\}\s*$/.test(text.slice(-64));
}

/** The value of a JSON text, or undefined when it is not JSON (then it is read as YAML). */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
