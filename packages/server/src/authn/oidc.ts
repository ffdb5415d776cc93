import { httpsFetchFor, type OidcSettings } from './oidc-discovery.js';
import { OidcSignIn } from './oidc-sign-in.js';
import { type OidcTokenOptions, OidcTokens } from './oidc-tokens.js';

/** Single sign-on's two ways in: ID tokens as bearer tokens, and console sign-in (with a redirect URL). */
export interface Oidc {
  tokens: OidcTokens;
  signIn?: OidcSignIn;
}

/** The sign-in button's "Sign in with …" when SVC_OIDC_PROVIDER_NAME is unset. */
export const DEFAULT_PROVIDER_NAME = 'single sign-on';

/** The settings of single sign-on as `Config` holds them (settings/oidc-settings.ts). */
export interface OidcConfig {
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcCaFile?: string;
  oidcClientSecret?: string;
  oidcRedirectUrl?: string;
  oidcProviderName?: string;
  oidcUsernameClaim: string;
  oidcGroupsClaim: string;
  oidcUsernamePrefix: string;
  oidcGroupsPrefix: string;
}

/** The OIDC settings, when single sign-on is set up (the issuer is set; the settings make the client id go with it). */
export function oidcSettingsOf(config: OidcConfig): OidcSettings | undefined {
  if (config.oidcIssuerUrl === undefined || config.oidcClientId === undefined) return undefined;
  return {
    issuerUrl: config.oidcIssuerUrl,
    clientId: config.oidcClientId,
    caFile: config.oidcCaFile,
    usernameClaim: config.oidcUsernameClaim,
    groupsClaim: config.oidcGroupsClaim,
    usernamePrefix: config.oidcUsernamePrefix,
    groupsPrefix: config.oidcGroupsPrefix,
  };
}

/**
 * The provider's ID tokens as bearer tokens, and console sign-in when SVC_OIDC_REDIRECT_URL is set; undefined without
 * single sign-on. Reads the CA file now.
 */
export async function createOidc(config: OidcConfig, options?: OidcTokenOptions): Promise<Oidc | undefined> {
  const settings = oidcSettingsOf(config);
  if (!settings) return undefined;
  const fetch = await httpsFetchFor(settings.caFile);
  const tokens = new OidcTokens(settings, fetch, options);
  if (config.oidcRedirectUrl === undefined) return { tokens };
  const signIn = new OidcSignIn(
    {
      issuerUrl: settings.issuerUrl,
      clientId: settings.clientId,
      clientSecret: config.oidcClientSecret,
      redirectUrl: config.oidcRedirectUrl,
      providerName: config.oidcProviderName ?? DEFAULT_PROVIDER_NAME,
    },
    fetch,
    tokens,
    options?.now,
  );
  return { tokens, signIn };
}
