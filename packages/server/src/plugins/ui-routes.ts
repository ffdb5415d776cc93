import { CONSOLE_API, notFound } from '@svc/plugin-api';
import { type DynamicRoute, publicGet } from '../api/dynamic-router.js';
import { type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { PluginUis } from './plugin-ui.js';

const YEAR_S = 365 * 24 * 3600;

/**
 * The policy of every plugin UI file. The console imports a UI's scripts and styles, where a response's policy does
 * not apply, and shows its images; opened as a page itself (an `.html` or `.svg` file, on the console's origin) a
 * file may run no script and reaches nothing: `sandbox` gives it an origin of its own, without scripts, and
 * `default-src 'none'` loads nothing but its own styles and inline images. Every type is served under it rather than
 * some refused: whichever type a plugin ships, none can act as the console.
 */
export const PLUGIN_UI_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/**
 * Plugin UIs (docs/api.md "Plugin UIs"): the list of started plugins' UIs, for every signed-in user (the gate lets
 * the `authenticated` role read it), and the UI files, public as the console's own files are.
 */
export function pluginUiRoutes(uis: PluginUis): DynamicRoute<HttpContext>[] {
  return [
    {
      method: 'GET',
      path: `${CONSOLE_API}/plugins/-/uis`,
      owner: 'core',
      doc: { summary: 'The UIs of the started plugins, for the console to load' },
      handler: async (ctx) =>
        ctx.reply
          .code(200)
          .type(JSON_TYPE)
          .header('cache-control', 'no-store')
          .send(JSON.stringify({ items: await uis.list() })),
    },
    publicGet(
      '/plugins/:name/ui/:tag/*',
      async (ctx, p) => {
        const file = p['*'] ?? '';
        const found = await uis.file(p.name ?? '', p.tag ?? '', file);
        if (!found) throw notFound(`no UI file "${file}" of a started plugin "${p.name}" at version ${p.tag}`);
        const gzip = /\bgzip\b/.test(String(ctx.request.headers['accept-encoding'] ?? ''));
        ctx.reply
          .header('cache-control', `public, max-age=${YEAR_S}, immutable`)
          .header('vary', 'accept-encoding')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', PLUGIN_UI_CSP)
          .type(found.type);
        if (!gzip) return ctx.reply.send(found.bytes);
        return ctx.reply.header('content-encoding', 'gzip').send(found.gzipped);
      },
      { summary: "A file of a started plugin's UI (cached for good: the tag changes with the build)" },
    ),
  ];
}
