import { readFile } from 'node:fs/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Audit, auditRef } from '../src/audit/module.js';
import { BACKENDS, roleBinding, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { startIssuer, type TestIssuer } from './oidc-issuer.js';

const CLIENT_ID = 'svc-console';
const CLIENT_SECRET = 'console-secret-for-tests';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const USERS = '/api/v1alpha1/users';
const CONSOLE_USERS = '/apis/api.console.svc.run/v1alpha1/users';
const BINDINGS = '/api/v1alpha1/rolebindings';
/** oidc:alice's User object: its slug and the first 12 hex digits of sha256("oidc:alice"). */
const ALICE_OBJECT = 'oidc-alice-edbcc36c119b';

interface Answer {
  status: number;
  location: string | undefined;
  cookies: Record<string, string>;
  setCookie: string[];
  body: string;
}

/**
 * Console sign-in with the provider (docs/access-control.md "Single sign-on"), over real HTTP: svc listening, the test
 * issuer's authorization and token endpoints over HTTPS with their own CA, every redirect followed by hand as a
 * browser would, cookies carried along. A sign-in ends in a session for oidc:<sub> with the token's groups; a bad
 * state, a wrong PKCE verifier, the provider's refusal and a replayed callback end in a 4xx and no session.
 */
describe.each(BACKENDS)('console sign-in with the OIDC provider (%s)', (backend) => {
  let issuer: TestIssuer;
  let t: TestServer;
  let base: string;
  let toIssuer: Agent;

  /** A GET without following redirects; to the issuer through its CA. */
  async function get(url: string, cookie = '', accept = '*/*'): Promise<Answer> {
    const answer = await undiciFetch(url, {
      redirect: 'manual',
      headers: { cookie, accept },
      dispatcher: url.startsWith(issuer.url) ? toIssuer : undefined,
    });
    const setCookie = answer.headers.getSetCookie();
    const cookies: Record<string, string> = {};
    for (const line of setCookie) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies[pair!.slice(0, eq)] = pair!.slice(eq + 1);
    }
    return {
      status: answer.status,
      location: answer.headers.get('location') ?? undefined,
      cookies,
      setCookie,
      body: await answer.text(),
    };
  }

  /** Clicks "Sign in with …": svc → issuer → back to svc's callback (not yet followed). */
  async function startSignIn(redirect = '') {
    const start = await get(`${base}/login/oidc${redirect}`);
    expect(start.status).toBe(302);
    const flow = `SVC_OIDC_FLOW=${start.cookies.SVC_OIDC_FLOW}`;
    const atIssuer = await get(start.location!);
    expect(atIssuer.status).toBe(302);
    return { start, flow, callback: atIssuer.location! };
  }

  async function whoami(cookies: Record<string, string>) {
    const answer = await undiciFetch(`${base}${SSR}`, {
      method: 'POST',
      headers: {
        cookie: `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`,
        'x-xsrf-token': cookies['XSRF-TOKEN']!,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    return { status: answer.status, body: (await answer.json()) as { status: { userInfo: unknown } } };
  }

  /** `POST /logout` as the console sends it, with the session's cookies and CSRF header. */
  async function logout(cookies: Record<string, string>) {
    const answer = await undiciFetch(`${base}/logout`, {
      method: 'POST',
      headers: {
        cookie: `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`,
        'x-xsrf-token': cookies['XSRF-TOKEN']!,
      },
    });
    const text = await answer.text();
    return { status: answer.status, body: text === '' ? undefined : (JSON.parse(text) as { endSessionUrl: string }) };
  }

  /** Alice's User object once its status has caught up (the sign-in writes it off the request's path). */
  async function aliceWhen(ready: (user: { status?: { providerGroups?: string[] } }) => boolean) {
    for (let i = 0; i < 100; i++) {
      const user = await t.request('GET', `${USERS}/${ALICE_OBJECT}`);
      if (ready(user.body)) return user.body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(
      `alice's User never got there: ${JSON.stringify((await t.request('GET', `${USERS}/${ALICE_OBJECT}`)).body)}`,
    );
  }

  beforeAll(async () => {
    issuer = await startIssuer(CLIENT_ID, { clientSecret: CLIENT_SECRET });
    toIssuer = new Agent({ connect: { ca: await readFile(issuer.caFile, 'utf8') } });
    t = await startTestServer({
      backend,
      pluginsDirs: [],
      env: {
        SVC_OIDC_ISSUER_URL: issuer.url,
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
        SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
        SVC_OIDC_CA_FILE: issuer.caFile,
        // svc's port is known only once it listens: the provider sends the browser to this registered URL, and the
        // test's browser takes the callback to where svc listens (toSvc).
        SVC_OIDC_REDIRECT_URL: 'http://127.0.0.1:1/login/oidc/callback',
        SVC_OIDC_PROVIDER_NAME: 'Test IdP',
      },
      serverOptions: { oidc: { jwksCooldownMs: 0 } },
    });
    base = await t.server.listen();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    await toIssuer?.close();
  });

  it('tells the sign-in page what it offers', async () => {
    const setup = await t.anonymous('GET', '/apis/api.console.svc.run/v1alpha1/setup');
    expect(setup.status).toBe(200);
    expect(setup.body).toEqual({ pending: false, localSignIn: true, oidc: { name: 'Test IdP' } });
  });

  it('sends the browser to the provider with PKCE, a state and a nonce kept in an httpOnly cookie', async () => {
    const start = await get(`${base}/login/oidc?redirect=/console/users`);
    expect(start.status).toBe(302);
    const to = new URL(start.location!);
    expect(to.origin + to.pathname).toBe(`${issuer.url}/authorize`);
    expect(to.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(to.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:1/login/oidc/callback');
    expect(to.searchParams.get('response_type')).toBe('code');
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(to.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(to.searchParams.get('scope')?.split(' ')).toContain('openid');
    const cookie = start.setCookie.find((line) => line.startsWith('SVC_OIDC_FLOW='))!;
    expect(cookie).toMatch(/; Path=\/login\/oidc; SameSite=Lax; Max-Age=600; HttpOnly$/);
    // The verifier never leaves svc's cookie: the provider sees only its challenge.
    expect(start.location).not.toContain(
      JSON.parse(Buffer.from(start.cookies.SVC_OIDC_FLOW!, 'base64url').toString()).verifier,
    );
  });

  it('signs in: a session for oidc:<sub> with its groups, a User object, and back to the console page', async () => {
    issuer.signInAs({ sub: 'alice', groups: ['devs', 'ops'], name: 'Alice Liddell', email: 'alice@example.com' });
    const { flow, callback } = await startSignIn('?redirect=/console/users');
    const back = await get(toSvc(callback), flow, 'text/html');
    expect(back.status).toBe(303);
    expect(back.location).toBe('/console/users');
    expect(back.cookies.SVC_SESSION).toMatch(/^[\w-]{20,}$/);
    expect(back.cookies['XSRF-TOKEN']).toMatch(/^[\w-]{20,}$/);
    expect(back.cookies.SVC_OIDC_FLOW).toBe('');
    const me = await whoami(back.cookies);
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo).toEqual({ username: 'oidc:alice', groups: ['oidc:devs', 'oidc:ops'] });

    const user = await t.request('GET', `${USERS}/${ALICE_OBJECT}`);
    expect(user.status).toBe(200);
    expect(user.body.spec).toEqual({
      identity: { provider: 'oidc', username: 'oidc:alice' },
      displayName: 'Alice Liddell',
      email: 'alice@example.com',
    });
  });

  it("records the provider's groups on the User, and lists them apart from an administrator's groups", async () => {
    issuer.signInAs({ sub: 'alice', groups: ['ops', 'devs'] });
    const { flow, callback } = await startSignIn();
    expect((await get(toSvc(callback), flow)).status).toBe(303);
    const signedIn = await aliceWhen((u) => u.status?.providerGroups?.length === 2);
    expect(signedIn.status?.providerGroups).toEqual(['oidc:devs', 'oidc:ops']);
    // Listed apart from an administrator's groups (a local user's spec.groups); a binding to one shows in the roles.
    const bound = await t.request('POST', BINDINGS, roleBinding('ops-guests', 'guest', { groups: ['oidc:ops'] }));
    expect(bound.status).toBe(201);
    const listed = await t.request('GET', `${CONSOLE_USERS}?keyword=alice`);
    expect(listed.body.items).toHaveLength(1);
    const [item] = listed.body.items;
    expect(item.groups).toEqual([]);
    expect(item.providerGroups).toEqual(['oidc:devs', 'oidc:ops']);
    expect(item.groupRoles.map((r: { name: string; group: string }) => [r.name, r.group])).toEqual([
      ['guest', 'oidc:ops'],
    ]);
    expect((await t.request('DELETE', `${BINDINGS}/ops-guests`)).status).toBe(200);

    // An ID token as a bearer token naming other groups updates the record once; the same groups again write nothing.
    const token = await issuer.sign({ sub: 'alice', groups: ['devs', 'qa'] });
    const asBearer = () =>
      t.anonymous(
        'POST',
        SSR,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        { authorization: `Bearer ${token}` },
      );
    expect((await asBearer()).status).toBe(201);
    const updated = await aliceWhen((u) => u.status?.providerGroups?.includes('oidc:qa') === true);
    expect(updated.status?.providerGroups).toEqual(['oidc:devs', 'oidc:qa']);
    const version = (updated as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    for (let i = 0; i < 5; i++) expect((await asBearer()).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await t.request('GET', `${USERS}/${ALICE_OBJECT}`);
    expect(after.body.metadata.resourceVersion).toBe(version);
    expect((await t.request('GET', `${CONSOLE_USERS}?keyword=alice`)).body.items[0].providerGroups).toEqual([
      'oidc:devs',
      'oidc:qa',
    ]);
  });

  it("signs out at the provider too: svc's session ends, then the provider's logout with the ID token", async () => {
    issuer.signInAs({ sub: 'alice', groups: ['devs'] });
    const { flow, callback } = await startSignIn();
    const back = await get(toSvc(callback), flow);
    expect(back.status).toBe(303);
    expect((await whoami(back.cookies)).status).toBe(201);
    const out = await logout(back.cookies);
    expect(out.status).toBe(200);
    const to = new URL(out.body!.endSessionUrl);
    expect(to.origin + to.pathname).toBe(`${issuer.url}/logout`);
    expect(to.searchParams.get('post_logout_redirect_uri')).toBe('http://127.0.0.1:1/console/login');
    expect(to.searchParams.get('client_id')).toBe(CLIENT_ID);
    const hint = to.searchParams.get('id_token_hint')!;
    const claims = JSON.parse(Buffer.from(hint.split('.')[1]!, 'base64url').toString('utf8'));
    expect([claims.iss, claims.aud, claims.sub, claims.groups]).toEqual([issuer.url, CLIENT_ID, 'alice', ['devs']]);
    // svc's session is over before the browser leaves.
    expect((await whoami(back.cookies)).status).toBe(401);
    const before = issuer.logouts().length;
    const atProvider = await get(to.href);
    expect(atProvider.status).toBe(302);
    expect(atProvider.location).toBe('http://127.0.0.1:1/console/login');
    expect(issuer.logouts().slice(before)).toEqual([
      { id_token_hint: hint, post_logout_redirect_uri: 'http://127.0.0.1:1/console/login', client_id: CLIENT_ID },
    ]);
    // A password sign-in's session has nothing to end at the provider.
    const local = await undiciFetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify(TEST_ADMIN),
    });
    expect(local.status).toBe(200);
    const localCookies = Object.fromEntries(
      local.headers.getSetCookie().map((line) => line.split(';')[0]!.split('=') as [string, string]),
    );
    expect(await logout(localCookies)).toEqual({ status: 204, body: undefined });
  });

  it('gives roles bound to the user through the console, and shows them in the user list', async () => {
    issuer.signInAs({ sub: 'alice', groups: ['devs'] });
    const { flow, callback } = await startSignIn();
    const back = await get(toSvc(callback), flow);
    expect(back.status).toBe(303);
    expect(back.location).toBe('/console/');
    const granted = await t.request('POST', `/apis/api.console.svc.run/v1alpha1/users/${ALICE_OBJECT}/permissions`, {
      roles: ['guest'],
    });
    expect(granted.status).toBe(200);
    expect(granted.body.roles).toEqual(['guest']);
    const bindings = await t.request('GET', BINDINGS);
    const subjects = bindings.body.items.flatMap((b: { subjects: { name: string }[] }) =>
      b.subjects.map((s) => s.name),
    );
    expect(subjects).toContain('oidc:alice');
    // Setting roles ended alice's sessions, as for a local user.
    expect((await whoami(back.cookies)).status).toBe(401);
    const listed = await t.request('GET', `${CONSOLE_USERS}?keyword=alice`);
    expect(
      listed.body.items.map((i: { user: { metadata: { name: string } }; roles: { name: string }[] }) => [
        i.user.metadata.name,
        i.roles.map((r) => r.name),
      ]),
    ).toEqual([[ALICE_OBJECT, ['guest']]]);
  });

  it('keeps no password for an OIDC user, and lets only svc set a user identity', async () => {
    const reset = await t.request('PUT', `/apis/api.console.svc.run/v1alpha1/users/${ALICE_OBJECT}/password`, {
      password: 'a-new-password-1',
    });
    expect(reset.status).toBe(403);
    expect(reset.body.detail).toBe(
      'user "oidc:alice" signs in with the identity provider; svc keeps no password for them',
    );
    const forged = await t.request('POST', USERS, {
      apiVersion: 'v1alpha1',
      kind: 'User',
      metadata: { name: 'mallory' },
      spec: { identity: { provider: 'oidc', username: 'oidc:bob' } },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.detail).toBe('only svc sets the identity of user "mallory" (spec.identity), at sign-in');
  });

  it('refuses a callback whose state is not the sign-in under way: 400, no session', async () => {
    const { flow, callback } = await startSignIn();
    const tampered = new URL(toSvc(callback));
    tampered.searchParams.set('state', 'someone-elses-state');
    const back = await get(tampered.href, flow);
    expect(back.status).toBe(400);
    expect(JSON.parse(back.body).detail).toBe("the callback's state is not this sign-in's; sign in again");
    expect(back.cookies.SVC_SESSION).toBeUndefined();
    expect(back.cookies.SVC_OIDC_FLOW).toBe('');
  });

  it('refuses a callback with no sign-in under way (another browser, or replayed): 400, no session', async () => {
    const { flow, callback } = await startSignIn();
    const first = await get(toSvc(callback), flow);
    expect(first.status).toBe(303);
    // The flow cookie is gone from the browser; played again with it kept, the provider refuses the used code.
    const withoutFlow = await get(toSvc(callback));
    expect(withoutFlow.status).toBe(400);
    expect(JSON.parse(withoutFlow.body).detail).toBe(
      'no sign-in is under way in this browser (or it was used already); sign in again',
    );
    const replayed = await get(toSvc(callback), flow);
    expect(replayed.status).toBe(400);
    expect(JSON.parse(replayed.body).detail).toBe(
      'the provider refused the authorization code: invalid_grant (unknown or used code)',
    );
    expect(replayed.cookies.SVC_SESSION).toBeUndefined();
  });

  it('refuses a code traded with another PKCE verifier: the provider says no, no session', async () => {
    const first = await startSignIn();
    const second = await startSignIn();
    // The second sign-in's code with the first's flow cookie: the state differs, so swap it in too.
    const mixed = new URL(toSvc(second.callback));
    mixed.searchParams.set('state', new URL(first.callback).searchParams.get('state')!);
    const refusedBefore = issuer.tokenExchanges().refused;
    const back = await get(mixed.href, first.flow);
    expect(back.status).toBe(400);
    expect(JSON.parse(back.body).detail).toBe(
      'the provider refused the authorization code: invalid_grant (the code_verifier does not match the code_challenge)',
    );
    expect(issuer.tokenExchanges().refused).toBe(refusedBefore + 1);
    expect(back.cookies.SVC_SESSION).toBeUndefined();
  });

  it("shows the provider's refusal on the console's sign-in page", async () => {
    issuer.deny('access_denied');
    try {
      const { flow, callback } = await startSignIn();
      const back = await get(toSvc(callback), flow, 'text/html,application/xhtml+xml');
      expect(back.status).toBe(303);
      const page = new URL(back.location!, base);
      expect(page.pathname).toBe('/console/login');
      expect(page.searchParams.get('oidcError')).toBe(
        'the provider refused the sign-in: access_denied (the test issuer was told to deny)',
      );
      expect(back.cookies.SVC_SESSION).toBeUndefined();
    } finally {
      issuer.deny(undefined);
    }
  });

  it('audits sign-ins with the provider, accepted and refused', async () => {
    issuer.signInAs({ sub: 'audrey' });
    const ok = await startSignIn();
    expect((await get(toSvc(ok.callback), ok.flow)).status).toBe(303);
    const bad = await startSignIn();
    expect((await get(toSvc(bad.callback))).status).toBe(400);
    const audit: Audit = t.server.modules.get(auditRef);
    await audit.flush();
    const events = await t.request('GET', '/apis/audit.svc.run/v1alpha1/events?verb=post');
    const callbacks = events.body.items.filter((e: { requestURI: string }) =>
      e.requestURI.startsWith('/login/oidc/callback'),
    );
    const summary = callbacks.map((e: { responseStatus: { code: number }; annotations?: Record<string, string> }) => [
      e.responseStatus.code,
      e.annotations?.['authentication.svc.run/username'] ?? e.annotations?.['authentication.svc.run/failure'],
    ]);
    expect(summary).toContainEqual([303, 'oidc:audrey']);
    expect(summary).toContainEqual([
      400,
      'no sign-in is under way in this browser (or it was used already); sign in again',
    ]);
  });

  /** The provider sends the browser to the registered URL; the test's svc listens on another port. */
  function toSvc(callback: string): string {
    const url = new URL(callback);
    return `${base}${url.pathname}${url.search}`;
  }
});

describe('local sign-in turned off', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ pluginsDirs: [], credentials: 'none', env: { SVC_LOCAL_SIGN_IN: 'false' } });
  }, 60_000);
  afterAll(() => t?.close());

  it('answers POST /login with a 403 saying so, and the sign-in page learns it', async () => {
    const login = await t.anonymous('POST', '/login', TEST_ADMIN);
    expect(login.status).toBe(403);
    expect(login.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(login.body.detail).toBe(
      'sign-in with a username and password is turned off on this server (SVC_LOCAL_SIGN_IN=false)',
    );
    expect(login.headers['set-cookie']).toBeUndefined();
    const setup = await t.anonymous('GET', '/apis/api.console.svc.run/v1alpha1/setup');
    expect(setup.body).toEqual({ pending: false, localSignIn: false });
    // Without a redirect URL there is no console sign-in with a provider either.
    expect((await t.anonymous('GET', '/login/oidc')).status).toBe(404);
  });
});

describe('a sign-in that takes too long', () => {
  let issuer: TestIssuer;
  let t: TestServer;
  let toIssuer: Agent;
  // svc's clock for single sign-on, moved by the test (the issuer keeps real time).
  let now = Date.now();

  beforeAll(async () => {
    // A provider with no logout of its own (no end_session_endpoint in its discovery).
    issuer = await startIssuer(CLIENT_ID, { endSession: false });
    toIssuer = new Agent({ connect: { ca: await readFile(issuer.caFile, 'utf8') } });
    t = await startTestServer({
      pluginsDirs: [],
      env: {
        SVC_OIDC_ISSUER_URL: issuer.url,
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
        SVC_OIDC_CA_FILE: issuer.caFile,
        SVC_OIDC_REDIRECT_URL: 'http://127.0.0.1:1/login/oidc/callback',
      },
      serverOptions: { oidc: { now: () => now } },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    await toIssuer?.close();
  });

  it("signs out with a 204 alone when the provider has no logout: the console's sign-in page is next", async () => {
    const start = await t.anonymous('GET', '/login/oidc');
    const flow = ([] as string[])
      .concat(start.headers['set-cookie'] as string)
      .find((c) => c.startsWith('SVC_OIDC_FLOW='))!;
    const atIssuer = await undiciFetch(start.headers.location as string, { redirect: 'manual', dispatcher: toIssuer });
    const callback = new URL(atIssuer.headers.get('location')!);
    const back = await t.anonymous('GET', `${callback.pathname}${callback.search}`, undefined, {
      cookie: flow.split(';')[0]!,
    });
    expect(back.status).toBe(303);
    const cookies = Object.fromEntries(
      ([] as string[])
        .concat(back.headers['set-cookie'] as string)
        .map((line) => line.split(';')[0]!.split('=') as [string, string]),
    );
    const out = await t.anonymous('POST', '/logout', undefined, {
      cookie: `SVC_SESSION=${cookies.SVC_SESSION}; XSRF-TOKEN=${cookies['XSRF-TOKEN']}`,
      'x-xsrf-token': cookies['XSRF-TOKEN']!,
    });
    expect(out.status).toBe(204);
    expect(issuer.logouts()).toEqual([]);
  });

  it('is refused 10 minutes after it started: 400, no session', async () => {
    const start = await t.anonymous('GET', '/login/oidc');
    expect(start.status).toBe(302);
    const flow = ([] as string[])
      .concat(start.headers['set-cookie'] as string)
      .find((c) => c.startsWith('SVC_OIDC_FLOW='))!;
    const atIssuer = await undiciFetch(start.headers.location as string, { redirect: 'manual', dispatcher: toIssuer });
    const callback = new URL(atIssuer.headers.get('location')!);
    now += 10 * 60_000 + 1;
    const back = await t.anonymous('GET', `${callback.pathname}${callback.search}`, undefined, {
      cookie: flow.split(';')[0]!,
    });
    expect(back.status).toBe(400);
    expect(back.body.detail).toBe('the sign-in took longer than 10 minutes; sign in again');
    expect(
      ([] as string[]).concat(back.headers['set-cookie'] as string).some((c) => c.startsWith('SVC_SESSION=')),
    ).toBe(false);
  });
});

describe('a provider that cannot be reached', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      pluginsDirs: [],
      env: {
        // Nothing listens on port 1.
        SVC_OIDC_ISSUER_URL: 'https://127.0.0.1:1',
        SVC_OIDC_CLIENT_ID: CLIENT_ID,
        SVC_OIDC_REDIRECT_URL: 'https://svc.example.com/login/oidc/callback',
      },
    });
  }, 60_000);
  afterAll(() => t?.close());

  it('answers 503 saying so, and sends a browser back to the sign-in page with the reason', async () => {
    const setup = await t.anonymous('GET', '/apis/api.console.svc.run/v1alpha1/setup');
    expect(setup.body).toEqual({ pending: false, localSignIn: true, oidc: { name: 'single sign-on' } });
    const api = await t.anonymous('GET', '/login/oidc');
    expect(api.status).toBe(503);
    expect(api.body.detail).toMatch(/^the identity provider could not be reached \(.+\); try again shortly$/);
    const browser = await t.anonymous('GET', '/login/oidc', undefined, { accept: 'text/html' });
    expect(browser.status).toBe(303);
    const page = new URL(browser.headers.location as string, 'https://svc.example.com');
    expect(page.pathname).toBe('/console/login');
    expect(page.searchParams.get('oidcError')).toBe(api.body.detail);
    expect(browser.headers['set-cookie']).toBeUndefined();
  });
});
