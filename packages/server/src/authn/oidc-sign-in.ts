import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import type { Principal } from '../authz/principal.js';
import type { HttpsFetch } from './oidc-discovery.js';
import { OidcTokenRefused, type OidcTokens } from './oidc-tokens.js';

/** The settings of console sign-in with the provider (settings/oidc-settings.ts). */
export interface OidcSignInSettings {
  issuerUrl: string;
  clientId: string;
  clientSecret?: string;
  redirectUrl: string;
  providerName: string;
}

/** A sign-in under way: what the callback must match. Kept in the browser's httpOnly flow cookie (oidc-flow.ts). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** The PKCE code verifier: only its S256 challenge went to the provider. */
  verifier: string;
  /** Epoch ms. */
  startedAt: number;
  /** The console page to land on. */
  returnTo: string;
}

/** The console's sign-in page, where a browser lands back after signing out at the provider. */
export const CONSOLE_SIGN_IN = '/console/login';

/** A sign-in at the provider lasts at most this long, from the button to the callback. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/** Why a sign-in failed, said to the person signing in; `status` is the HTTP answer's. */
export class OidcSignInRefused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 503 = 400,
  ) {
    super(message);
  }
}

/** A signed-in user: who the ID token says, and what of it the User object shows. */
export interface SignedIn {
  principal: Principal;
  /** The ID token, for the provider's logout (`id_token_hint`). */
  idToken: string;
  displayName?: string;
  email?: string;
}

/**
 * Console sign-in with the provider: the authorization code flow with PKCE (S256), a state and a nonce, through
 * openid-client. The ID token the token endpoint returns is then checked again by the bearer path's own checks
 * (OidcTokens: signature by the provider's published keys, issuer, audience, expiry), so both ways in accept the same
 * tokens and name the same user and groups.
 */
export class OidcSignIn {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    readonly settings: OidcSignInSettings,
    private readonly fetch: HttpsFetch,
    private readonly tokens: OidcTokens,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where to send the browser, and what its flow cookie keeps. */
  async start(returnTo: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.config();
    const verifier = client.randomPKCECodeVerifier();
    const pending: PendingSignIn = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier,
      startedAt: this.now(),
      returnTo,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl,
      scope: 'openid profile email',
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** The callback: checks it against the sign-in under way, exchanges the code and checks the ID token. */
  async finish(query: URLSearchParams, pending: PendingSignIn | undefined): Promise<SignedIn> {
    if (!pending) {
      throw new OidcSignInRefused('no sign-in is under way in this browser (or it was used already); sign in again');
    }
    if (this.now() - pending.startedAt > SIGN_IN_TTL_MS) {
      throw new OidcSignInRefused('the sign-in took longer than 10 minutes; sign in again');
    }
    if (query.get('state') !== pending.state) {
      throw new OidcSignInRefused("the callback's state is not this sign-in's; sign in again");
    }
    const error = query.get('error');
    if (error !== null) {
      const description = query.get('error_description');
      throw new OidcSignInRefused(
        `the provider refused the sign-in: ${error}${description ? ` (${description})` : ''}`,
      );
    }
    if (!query.get('code')) throw new OidcSignInRefused('the callback carries no authorization code');

    const config = await this.config();
    const current = new URL(this.settings.redirectUrl);
    current.search = query.toString();
    let idToken: string | undefined;
    try {
      const answer = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      idToken = answer.id_token;
    } catch (thrown) {
      throw refusalOf(thrown);
    }
    if (!idToken) throw new OidcSignInRefused('the provider returned no ID token');
    try {
      const principal = await this.tokens.authenticate(idToken);
      // Verified just above: reading its claims again is no second check.
      const claims = decodeJwt(idToken);
      return {
        principal,
        idToken,
        displayName: typeof claims.name === 'string' ? claims.name : undefined,
        email: typeof claims.email === 'string' && claims.email_verified !== false ? claims.email : undefined,
      };
    } catch (thrown) {
      if (thrown instanceof OidcTokenRefused) throw new OidcSignInRefused(thrown.message);
      throw thrown;
    }
  }

  /**
   * Where to send the browser to end its session at the provider too (OpenID Connect RP-Initiated Logout), naming the
   * session by its ID token and asking to come back to the console's sign-in page; undefined when the provider's
   * discovery has no `end_session_endpoint`, or the provider cannot be reached (svc's own sign-out is done anyway).
   */
  async endSessionUrl(idToken: string): Promise<string | undefined> {
    let config: client.Configuration;
    try {
      config = await this.config();
    } catch {
      return undefined;
    }
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, {
      id_token_hint: idToken,
      post_logout_redirect_uri: new URL(CONSOLE_SIGN_IN, this.settings.redirectUrl).href,
    }).href;
  }

  /** The provider's metadata through openid-client, discovered once; a failure is tried again on the next sign-in. */
  private config(): Promise<client.Configuration> {
    if (!this.configuration) {
      const { issuerUrl, clientId, clientSecret } = this.settings;
      this.configuration = client
        .discovery(
          new URL(issuerUrl),
          clientId,
          { redirect_uris: [this.settings.redirectUrl] },
          // The registration default (RFC 7591): the secret in HTTP Basic; no secret, a public client with PKCE only.
          clientSecret === undefined ? client.None() : client.ClientSecretBasic(clientSecret),
          { [client.customFetch]: this.fetch as never, timeout: 10 },
        )
        .catch((thrown: unknown) => {
          this.configuration = undefined;
          throw new OidcSignInRefused(
            `the identity provider could not be reached (${(thrown as Error).message}); try again shortly`,
            503,
          );
        });
    }
    return this.configuration;
  }
}

/** openid-client's failures, said plainly: the provider's refusals and bad answers are no bug of svc's. */
function refusalOf(thrown: unknown): OidcSignInRefused {
  if (thrown instanceof client.ResponseBodyError || thrown instanceof client.AuthorizationResponseError) {
    const description = thrown.error_description ? ` (${thrown.error_description})` : '';
    return new OidcSignInRefused(`the provider refused the authorization code: ${thrown.error}${description}`);
  }
  if (thrown instanceof client.ClientError) {
    return new OidcSignInRefused(`the provider's answer is not valid: ${thrown.message}`);
  }
  return new OidcSignInRefused(
    `the identity provider could not be reached (${(thrown as Error).message}); try again shortly`,
    503,
  );
}
