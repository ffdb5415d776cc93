/**
 * `/docs`: the API reference, Swagger UI (npm `swagger-ui-dist`) rendering `/openapi.json`, served from node_modules
 * and nothing else: every asset is same-origin, and the page's Content-Security-Policy allows nothing but this server
 * (`data:` images aside: Swagger UI's stylesheet draws its icons with them). Assets are read and gzipped once, on the
 * first request for them, off the event loop (zlib's thread pool), so other requests do not wait.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

export const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

export interface DocsAsset {
  type: string;
  bytes: Buffer;
  gzipped: Buffer;
  etag: string;
}

/**
 * The files of swagger-ui-dist the page loads, and their types; nothing else of the package is served, or shipped in
 * the release package (scripts/package.js).
 */
export const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>svc API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/docs.js"></script>
</body>
</html>
`;

// A file, not an inline script, so the page's policy needs no 'unsafe-inline'. No validator badge: it calls out.
// "Try it out" from a signed-in browser: writes echo the XSRF-TOKEN cookie, as the session's CSRF check asks.
const START = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    requestInterceptor: function (request) {
      var xsrf = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
      if (xsrf) request.headers['X-XSRF-TOKEN'] = decodeURIComponent(xsrf[1]);
      return request;
    },
  });
});
`;

const assets = new Map<string, Promise<DocsAsset>>();
const gzipped = promisify(gzip);

/** The page (`''`) or one of its assets by file name; undefined for anything else. */
export function docsAsset(name: string): Promise<DocsAsset> | undefined {
  const found = assets.get(name);
  if (found) return found;
  let made: Promise<DocsAsset>;
  if (name === '') made = asset('text/html; charset=utf-8', Buffer.from(PAGE));
  else if (name === 'docs.js') made = asset('text/javascript; charset=utf-8', Buffer.from(START));
  else if (Object.hasOwn(SWAGGER_UI_FILES, name)) {
    made = readFile(path.join(swaggerUiDir(), name)).then((bytes) => asset(SWAGGER_UI_FILES[name]!, bytes));
  } else return undefined;
  // A failed read is not kept: the next request tries again.
  made.catch(() => assets.delete(name));
  assets.set(name, made);
  return made;
}

async function asset(type: string, bytes: Buffer): Promise<DocsAsset> {
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { type, bytes, gzipped: await gzipped(bytes), etag };
}

function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}
