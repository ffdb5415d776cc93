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

/**
 * A minimal OpenID Connect issuer for tests: discovery and JWKS over HTTPS with a CA made for the test (the TLS
 * helpers' own), keys that can be rotated, and ID tokens signed on demand.
 */
export interface TestIssuer {
  url: string;
  caFile: string;
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

export async function startIssuer(clientId: string): Promise<TestIssuer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-oidc-issuer-'));
  const tls = await loadTlsMaterial({ dataDir: dir, hosts: [] });
  let published: SigningKey[] = [await newKey()];
  let current = published[0]!;
  // Signs with a key the issuer never publishes: a token anyone could have made.
  const stranger = await newKey();
  let fetches = 0;
  let url = '';
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') {
      return send({
        issuer: url,
        jwks_uri: `${url}/jwks`,
        authorization_endpoint: `${url}/authorize`,
        token_endpoint: `${url}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (request.url === '/jwks') {
      fetches++;
      return send({ keys: published.map((k) => k.jwk) });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caFile: tls.caFile!,
    jwksFetches: () => fetches,
    async sign(claims = {}, options = {}) {
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
    },
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
