import { httpsFetchFor, type OidcSettings } from './oidc-discovery.js';
import { type OidcTokenOptions, OidcTokens } from './oidc-tokens.js';

/** The settings of single sign-on as `Config` holds them (settings/oidc-settings.ts). */
export interface OidcConfig {
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcCaFile?: string;
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

/** The provider's ID tokens as bearer tokens, or undefined without single sign-on. Reads the CA file now. */
export async function createOidcTokens(
  config: OidcConfig,
  options?: OidcTokenOptions,
): Promise<OidcTokens | undefined> {
  const settings = oidcSettingsOf(config);
  if (!settings) return undefined;
  return new OidcTokens(settings, await httpsFetchFor(settings.caFile), options);
}
