import type { RouteShape } from './route-operations.js';

/**
 * The routes served beside the runtime router (api/app.ts and authn/login-routes.ts register them on Fastify itself),
 * for the 3.1 document: everything else it lists comes from the router.
 */
export const FRAMEWORK_ROUTES: readonly RouteShape[] = [
  {
    method: 'POST',
    path: '/login',
    owner: 'core',
    public: true,
    doc: {
      summary: 'Sign in: sets the session cookie and the XSRF-TOKEN cookie (echo it in X-XSRF-TOKEN on writes)',
      // A wrong password is a 401; too many attempts, a 429.
      errors: [401, 429],
      requestBody: {
        type: 'object',
        required: ['username', 'password'],
        properties: { username: { type: 'string' }, password: { type: 'string' } },
      },
    },
  },
  {
    method: 'GET',
    path: '/login/oidc',
    owner: 'core',
    public: true,
    doc: {
      summary: 'Console sign-in with the identity provider: a 302 to its authorization endpoint (PKCE, state, nonce)',
      description:
        'Served when SVC_OIDC_REDIRECT_URL is set. Query: redirect, the console page (/console/… or /uc/…) to land on.',
      errors: [503],
    },
  },
  {
    method: 'GET',
    path: '/login/oidc/callback',
    owner: 'core',
    public: true,
    doc: {
      summary: "The provider's redirect back: exchanges the code, sets the session cookies, and a 303 to the console",
      description:
        "A refused sign-in (state not this browser's, expired, the provider's error, a code or PKCE verifier it " +
        'refuses, an invalid ID token) is a 400 problem+json, 403 for a disabled user; a browser (Accept: text/html) ' +
        'is sent back to /console/login?oidcError=<detail> instead.',
      errors: [400, 403, 503],
    },
  },
  { method: 'POST', path: '/logout', owner: 'core', public: true, doc: { summary: 'Sign out: ends the session' } },
  {
    method: 'GET',
    path: '/version',
    owner: 'core',
    public: true,
    doc: {
      summary: 'The server version, as Kubernetes /version',
      response: {
        type: 'object',
        properties: {
          major: { type: 'string' },
          minor: { type: 'string' },
          gitVersion: { type: 'string' },
          svcVersion: { type: 'string' },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/healthz',
    owner: 'core',
    public: true,
    doc: { summary: 'Liveness (the older name of /livez)' },
  },
  { method: 'GET', path: '/livez', owner: 'core', public: true, doc: { summary: 'Liveness' } },
  {
    method: 'GET',
    path: '/readyz',
    owner: 'core',
    public: true,
    doc: { summary: 'Readiness: 503 until this server has caught up with the store' },
  },
  {
    method: 'GET',
    path: '/metrics',
    owner: 'core',
    doc: {
      summary: "Prometheus metrics: controllers' queues and reconciles, objects, watches, the process",
      description: 'Allowed to the super administrator, and to roles with `nonResourceURLs: ["/metrics"]`, verb `get`.',
    },
  },
];
