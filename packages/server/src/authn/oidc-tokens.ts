import { hash } from 'node:crypto';
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Principal } from '../authz/principal.js';
import { discover, type HttpsFetch, type OidcSettings } from './oidc-discovery.js';

/** How far the provider's clock and svc's may disagree when `exp`, `nbf` and `iat` are checked. */
const CLOCK_TOLERANCE_S = 30;
/** A verified token is trusted again without a signature check for at most this long (and never past `exp`). */
const VERIFIED_TTL_MS = 30_000;
const VERIFIED_MAX = 10_000;
/** A failed discovery is tried again at most this often, so a provider that is down is not hammered. */
const DISCOVERY_RETRY_MS = 10_000;
/** Asymmetric algorithms only: a shared-secret one would let anyone with the client id's secret sign tokens. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface OidcTokenOptions {
  /** Tests: how soon an unknown `kid` may fetch the keys again (jose's cooldown, 30 s by default). */
  jwksCooldownMs?: number;
  now?: () => number;
}

/** Why a token was refused, for the 401's detail (the caller holds the token: nothing here is secret). */
export class OidcTokenRefused extends Error {}

interface Verified {
  principal: Principal;
  expiresAtMs: number;
}

/**
 * ID tokens of one OpenID Connect provider as bearer tokens, checked as the Kubernetes API server checks them:
 * signature by the provider's published keys (discovered, fetched again when a token names an unknown key), issuer,
 * audience (the client id), `exp` and `nbf` with a little clock skew. A verified token's principal is kept briefly in a
 * bounded cache keyed by the token's digest, so a client reusing its token pays a hash and a lookup.
 */
export class OidcTokens {
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  private discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  private failedAt = 0;
  private readonly verified = new LRUCache<string, Verified>({ max: VERIFIED_MAX, ttl: VERIFIED_TTL_MS });

  constructor(
    readonly settings: OidcSettings,
    private readonly fetch: HttpsFetch,
    private readonly options: OidcTokenOptions = {},
  ) {}

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Whether a bearer credential has a JWT's shape (three base64url parts), so it is this authenticator's to judge. */
  static looksLikeJwt(credentials: string): boolean {
    return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(credentials);
  }

  /** The principal of a valid ID token; throws OidcTokenRefused naming what is wrong with an invalid one. */
  async authenticate(token: string): Promise<Principal> {
    // The digest, not the token, is kept: a heap snapshot shows no usable credential. One-shot `hash` is the cheap way.
    const key = hash('sha256', token, 'base64url');
    const hit = this.verified.get(key);
    if (hit && hit.expiresAtMs > this.now) return hit.principal;
    const payload = await this.verify(token);
    const principal = this.principalOf(payload);
    const expiresAtMs = payload.exp! * 1000;
    this.verified.set(
      key,
      { principal, expiresAtMs },
      { ttl: Math.max(1, Math.min(VERIFIED_TTL_MS, expiresAtMs - this.now)) },
    );
    return principal;
  }

  private async verify(token: string): Promise<JWTPayload> {
    const keys = await this.jwks();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuerUrl,
        audience: this.settings.clientId,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'iat'],
        currentDate: new Date(this.now),
      });
      return payload;
    } catch (error) {
      throw new OidcTokenRefused(reasonOf(error));
    }
  }

  private principalOf(payload: JWTPayload): Principal {
    const { usernameClaim, groupsClaim, usernamePrefix, groupsPrefix } = this.settings;
    const name = payload[usernameClaim];
    if (typeof name !== 'string' || name === '') throw new OidcTokenRefused(`the ${usernameClaim} claim is missing`);
    // As Kubernetes: an email names a user only once the provider has verified it.
    if (usernameClaim === 'email' && payload.email_verified !== undefined && payload.email_verified !== true) {
      throw new OidcTokenRefused('the email claim is not verified');
    }
    const claimed = payload[groupsClaim];
    const list = claimed === undefined ? [] : typeof claimed === 'string' ? [claimed] : claimed;
    if (!Array.isArray(list) || !list.every((g): g is string => typeof g === 'string')) {
      throw new OidcTokenRefused(`the ${groupsClaim} claim must be a string or a list of strings`);
    }
    return Object.freeze({
      username: usernamePrefix + name,
      via: 'oidc',
      groups: Object.freeze([...new Set(list.map((g) => groupsPrefix + g))]),
      expiresAtMs: payload.exp! * 1000,
    });
  }

  /** The provider's key set, discovered once; a failed discovery is retried on a later request. */
  private async jwks(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.keys) return this.keys;
    if (!this.discovering) {
      if (this.now - this.failedAt < DISCOVERY_RETRY_MS) {
        throw new OidcTokenRefused('the identity provider could not be reached; try again shortly');
      }
      this.discovering = discover(this.settings.issuerUrl, this.fetch).then(
        (metadata) =>
          (this.keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
            cooldownDuration: this.options.jwksCooldownMs ?? 30_000,
            timeoutDuration: 10_000,
            [customFetch]: this.fetch,
          })),
        (error: unknown) => {
          this.failedAt = this.now;
          this.discovering = undefined;
          throw new OidcTokenRefused(`the identity provider could not be reached (${(error as Error).message})`);
        },
      );
    }
    return this.discovering;
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the ID token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the ID token is not for this server (audience)';
    if (error.claim === 'iss') return 'the ID token is from another issuer';
    if (error.claim === 'nbf') return 'the ID token is not valid yet';
    return `the ID token's ${error.claim} claim is invalid`;
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return "the ID token is signed with a key the provider doesn't publish";
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the ID token signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return "the ID token's signing algorithm is not accepted";
  if (error instanceof errors.JOSEError) return 'the ID token is malformed or its keys could not be read';
  // The keys' fetch failing (network, TLS) is the provider's trouble, not a bug of svc's.
  return "the identity provider's keys could not be read";
}
