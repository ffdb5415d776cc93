import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { loadTlsMaterial } from '../src/tls/certificates.js';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** A code the authorization endpoint gave out, waiting for the token endpoint. */
interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
  claims: JWTPayload;
}

/**
 * A minimal OpenID Connect issuer for tests: discovery and JWKS over HTTPS with a CA made for the test (the TLS
 * helpers' own), keys that can be rotated, and ID tokens signed on demand. For console sign-in it also has an
 * authorization endpoint that approves at once whoever `signInAs` names (or answers `deny`'s error), and a token
 * endpoint that trades a code once for an ID token, checking the client, the redirect URI and the PKCE verifier
 * against the S256 challenge. Its discovery names an `end_session_endpoint` (unless `endSession: false`), which
 * records each logout and sends the browser on to its `post_logout_redirect_uri`.
 */
export interface TestIssuer {
  url: string;
  caFile: string;
  /** The claims of the user the authorization endpoint approves next (sub alice by default). */
  signInAs(claims: JWTPayload): void;
  /** The authorization endpoint answers this OAuth error instead (undefined: approve again). */
  deny(error: string | undefined): void;
  /** How many codes the token endpoint traded, and how many it refused. */
  tokenExchanges(): { granted: number; refused: number };
  /** The logouts the end_session endpoint saw, in order: the query parameters it was given. */
  logouts(): Array<Record<string, string>>;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** A signed ID token; claims given replace the defaults (iss, aud, sub, iat, exp in ten minutes). */
  sign(claims?: JWTPayload, options?: { key?: 'current' | 'stranger'; clientId?: string }): Promise<string>;
  /** A new key becomes the signing key; the JWKS publishes only it unless `keepOld`. */
  rotate(options?: { keepOld?: boolean }): Promise<void>;
  close(): Promise<void>;
}

let kids = 0;
async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `key-${++kids}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startIssuer(
  clientId: string,
  options: { clientSecret?: string; endSession?: boolean } = {},
): Promise<TestIssuer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-oidc-issuer-'));
  const tls = await loadTlsMaterial({ dataDir: dir, hosts: [] });
  let published: SigningKey[] = [await newKey()];
  let current = published[0]!;
  // Signs with a key the issuer never publishes: a token anyone could have made.
  const stranger = await newKey();
  let fetches = 0;
  let url = '';
  let approved: JWTPayload = { sub: 'alice' };
  let denial: string | undefined;
  const codes = new Map<string, IssuedCode>();
  const exchanges = { granted: 0, refused: 0 };
  const logouts: Array<Record<string, string>> = [];
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const send = (body: unknown, status = 200) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '').split('?')[0];
    if (path === '/authorize') return authorize(new URL(request.url!, url).searchParams, response);
    if (path === '/logout' && options.endSession !== false) {
      const query = Object.fromEntries(new URL(request.url!, url).searchParams);
      logouts.push(query);
      const back = query.post_logout_redirect_uri;
      if (back) return void response.writeHead(302, { location: back }).end();
      return void response.writeHead(200, { 'content-type': 'text/plain' }).end('signed out');
    }
    if (path === '/token' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        void exchange(new URLSearchParams(body), request.headers.authorization).then(
          (answer) => {
            if ('error' in answer) exchanges.refused++;
            else exchanges.granted++;
            send(answer, 'error' in answer ? 400 : 200);
          },
          (error: Error) => send({ error: 'server_error', error_description: error.message }, 500),
        );
      });
      return;
    }
    if (request.url === '/.well-known/openid-configuration') {
      return send({
        issuer: url,
        jwks_uri: `${url}/jwks`,
        authorization_endpoint: `${url}/authorize`,
        token_endpoint: `${url}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
        ...(options.endSession === false ? {} : { end_session_endpoint: `${url}/logout` }),
      });
    }
    if (request.url === '/jwks') {
      fetches++;
      return send({ keys: published.map((k) => k.jwk) });
    }
    response.writeHead(404).end();
  });

  function authorize(query: URLSearchParams, response: import('node:http').ServerResponse): void {
    const redirectUri = query.get('redirect_uri');
    if (!redirectUri || query.get('client_id') !== clientId) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('unknown client or no redirect_uri');
      return;
    }
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const challenge = query.get('code_challenge');
    if (denial) {
      back.searchParams.set('error', denial);
      back.searchParams.set('error_description', 'the test issuer was told to deny');
    } else if (!challenge || query.get('code_challenge_method') !== 'S256') {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'PKCE with S256 is required');
    } else {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { clientId, redirectUri, challenge, nonce: query.get('nonce') ?? undefined, claims: approved });
      back.searchParams.set('code', code);
    }
    response.writeHead(302, { location: back.href }).end();
  }

  async function exchange(form: URLSearchParams, authorization: string | undefined) {
    const refuse = (error: string, description: string) => ({ error, error_description: description });
    // The client: HTTP Basic with the secret when the issuer has one, else client_id in the form (a public client).
    let client = form.get('client_id');
    let secret: string | undefined;
    if (authorization?.startsWith('Basic ')) {
      const [id, key] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
      client = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(key ?? '');
    }
    if (client !== clientId) return refuse('invalid_client', 'unknown client');
    if (options.clientSecret !== undefined && secret !== options.clientSecret) {
      return refuse('invalid_client', 'wrong client secret');
    }
    if (form.get('grant_type') !== 'authorization_code') return refuse('unsupported_grant_type', 'code only');
    const code = form.get('code') ?? '';
    const issued = codes.get(code);
    // A code is good once.
    codes.delete(code);
    if (!issued) return refuse('invalid_grant', 'unknown or used code');
    if (form.get('redirect_uri') !== issued.redirectUri) return refuse('invalid_grant', 'redirect_uri differs');
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
      return refuse('invalid_grant', 'the code_verifier does not match the code_challenge');
    }
    const idToken = await signToken(
      issued.nonce === undefined ? issued.claims : { ...issued.claims, nonce: issued.nonce },
    );
    return {
      access_token: randomBytes(16).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 600,
      id_token: idToken,
    };
  }

  async function signToken(claims: JWTPayload = {}, options: { key?: 'current' | 'stranger'; clientId?: string } = {}) {
    const key = options.key === 'stranger' ? stranger : current;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: url,
      aud: options.clientId ?? clientId,
      sub: 'alice',
      iat: now,
      exp: now + 600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caFile: tls.caFile!,
    signInAs: (claims) => void (approved = claims),
    deny: (error) => void (denial = error),
    tokenExchanges: () => ({ ...exchanges }),
    logouts: () => [...logouts],
    jwksFetches: () => fetches,
    sign: signToken,
    async rotate(options = {}) {
      current = await newKey();
      published = options.keepOld ? [...published, current] : [current];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
