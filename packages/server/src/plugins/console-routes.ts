import {
  apisPath,
  badRequest,
  CONSOLE_API,
  invalid,
  PLUGIN_GROUP,
  payloadTooLarge,
  unsupportedMediaType,
} from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { actorOf, type HttpContext, JSON_TYPE } from '../api/http-context.js';
import { sendList } from '../api/list-envelope.js';
import type { ObjectService } from '../registry/object-service.js';
import { checkMayRunPluginCode, type MayRunPluginCode } from './plugin-admission.js';
import type { PluginLifecycle } from './plugin-lifecycle.js';

const BASE = `${CONSOLE_API}/plugins`;
const OBJECT_PATH = `${apisPath(PLUGIN_GROUP)}/plugins`;
/** Largest archive accepted for install or upgrade. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

export interface PluginConsoleDeps {
  lifecycle: PluginLifecycle;
  objects: ObjectService;
  /** Who may install, upgrade or enable plugin code: a super administrator (plugin-admission.ts). */
  mayRunCode: MayRunPluginCode;
}

/**
 * The console's plugin management (docs/api.md "Plugins"): list with state, install, upgrade, enable/disable, and the
 * log of the latest start. Uninstall is the generated DELETE of the Plugin object. Who may call these is decided by
 * the authorization hook like any route (super administrator, or the plugin role templates); installing, upgrading and
 * enabling are moreover a super administrator's alone, checked before the archive is read.
 */
export function pluginConsoleRoutes({
  lifecycle,
  objects,
  mayRunCode,
}: PluginConsoleDeps): DynamicRoute<HttpContext>[] {
  const mustRunCode = (ctx: HttpContext, what: string) => checkMayRunPluginCode(actorOf(ctx), mayRunCode, what);
  const send = (ctx: HttpContext, status: number, body: unknown) =>
    ctx.reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));
  const route = (
    method: string,
    path: string,
    handler: (ctx: HttpContext, params: Record<string, string | undefined>) => Promise<unknown>,
  ): DynamicRoute<HttpContext> => ({ method, path: `${BASE}${path}`, owner: 'core', handler });

  return [
    route('GET', '', async (ctx) => sendList(ctx, objects, lifecycle.model)),
    route('POST', '/install', async (ctx) => {
      mustRunCode(ctx, 'install a plugin');
      const installed = await lifecycle.install(await readArchive(ctx.request));
      ctx.reply.header('location', `${OBJECT_PATH}/${installed.metadata.name}`);
      return send(ctx, 201, installed);
    }),
    route('GET', '/:name', async (ctx, { name }) => send(ctx, 200, await lifecycle.get(name!))),
    // Both wait for the plugin's status; one not settled within the time limit is answered as it stands, with 202.
    route('POST', '/:name/upgrade', async (ctx, { name }) => {
      mustRunCode(ctx, `upgrade plugin "${name}"`);
      const { object, settled } = await lifecycle.upgrade(name!, await readArchive(ctx.request));
      return send(ctx, settled ? 200 : 202, object);
    }),
    route('PUT', '/:name/plugin-state', async (ctx, { name }) => {
      const { enable, async: runAsync } = pluginStateBody(ctx.request.body);
      // Also when it is enabled already: enabling again retries a start that failed.
      if (enable) mustRunCode(ctx, `enable plugin "${name}"`);
      const { object, settled } = await lifecycle.setEnabled(name!, enable, actorOf(ctx), !runAsync);
      return send(ctx, settled ? 200 : 202, object);
    }),
    route('GET', '/:name/logs', async (ctx, { name }) => send(ctx, 200, await lifecycle.logs(name!))),
  ];
}

function pluginStateBody(body: unknown): { enable: boolean; async: boolean } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object such as {"enable": true}');
  }
  const { enable, async: runAsync, ...rest } = body as Record<string, unknown>;
  const errors = [];
  if (typeof enable !== 'boolean') errors.push({ path: '/enable', message: 'must be true or false' });
  if (runAsync !== undefined && typeof runAsync !== 'boolean')
    errors.push({ path: '/async', message: 'must be true or false' });
  for (const key of Object.keys(rest)) errors.push({ path: `/${key}`, message: 'is not a known field' });
  if (errors.length > 0)
    throw invalid(`plugin-state: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  return { enable: enable as boolean, async: runAsync === true };
}

/** The uploaded archive: the multipart field `file`, read into memory up to MAX_UPLOAD_BYTES. */
async function readArchive(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw unsupportedMediaType('send the plugin archive as multipart/form-data, in the field "file"');
  }
  try {
    for await (const part of request.parts({
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 11 },
    })) {
      if (part.type === 'file' && part.fieldname === 'file') return await part.toBuffer();
      if (part.type === 'file') part.file.resume();
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw payloadTooLarge(`the archive is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`);
    if (typeof code === 'string' && code.startsWith('FST_'))
      throw badRequest(`the multipart body was refused: ${(error as Error).message}`);
    throw error;
  }
  throw badRequest('the multipart field "file" (the plugin\'s .tgz or .zip archive) is missing');
}
