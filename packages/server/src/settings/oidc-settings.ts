/** The settings of single sign-on with an OpenID Connect provider (docs/access-control.md "Single sign-on"). */
import { type Reading, SettingError, setting } from './setting.js';
import { absolutePath, optional, text } from './values.js';

/** The issuer as the provider names itself: an https URL without query or fragment, as Kubernetes requires. */
export function issuerUrl(raw: string, at: Reading): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.search !== '' || url.hash !== '') {
    throw new SettingError(`${at.name} must be an https:// URL without query or fragment, got "${raw}"`);
  }
  // The `iss` claim must equal it exactly, so it is kept as written.
  return raw.trim();
}

/** Where console sign-in's callback is served: an http(s) URL whose path is `/login/oidc/callback`. */
export const CALLBACK_PATH = '/login/oidc/callback';
export function redirectUrl(raw: string, at: Reading): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  const web = url?.protocol === 'https:' || url?.protocol === 'http:';
  if (!url || !web || url.pathname !== CALLBACK_PATH || url.search !== '' || url.hash !== '') {
    throw new SettingError(
      `${at.name} must be svc's own http(s) URL with path ${CALLBACK_PATH} and no query, got "${raw}"`,
    );
  }
  return url.href;
}

const claimName = (raw: string, at: Reading): string => {
  const name = raw.trim();
  if (name === '') throw new SettingError(`${at.name} must name a claim`);
  return name;
};

export const OIDC_SETTINGS = [
  setting({
    key: 'oidcIssuerUrl',
    env: 'SVC_OIDC_ISSUER_URL',
    arg: 'URL',
    unset: 'off',
    help: 'accept ID tokens of this OpenID Connect issuer',
    docs:
      'the https URL of an OpenID Connect provider whose ID tokens are accepted as bearer tokens; its discovery ' +
      'document and keys are read from it. Unset: no single sign-on',
    parse: optional(issuerUrl),
  }),
  setting({
    key: 'oidcClientId',
    env: 'SVC_OIDC_CLIENT_ID',
    arg: 'ID',
    unset: 'none',
    help: "the audience an ID token's aud must name",
    docs: "the client id svc is registered under at the provider: an ID token's `aud` must name it. Needed with the issuer",
    parse: (raw: string, at: Reading) => {
      const id = raw.trim();
      if (id === '' && at.earlier.oidcIssuerUrl !== undefined)
        throw new SettingError(`${at.name} must be set with SVC_OIDC_ISSUER_URL: it is the audience ID tokens name`);
      return id === '' ? undefined : id;
    },
  }),
  setting({
    key: 'oidcClientSecret',
    env: 'SVC_OIDC_CLIENT_SECRET',
    arg: 'SECRET',
    // A flag would show in `ps`.
    flag: false,
    unset: 'a public client',
    help: "the client's secret, for console sign-in",
    docs:
      'the client secret the provider gave svc, sent to its token endpoint during console sign-in; unset, svc signs in ' +
      'as a public client (PKCE only). The environment or the config file: no flag',
    parse: optional(text),
  }),
  setting({
    key: 'oidcRedirectUrl',
    env: 'SVC_OIDC_REDIRECT_URL',
    arg: 'URL',
    unset: 'no console sign-in',
    help: 'the callback URL registered at the provider',
    docs:
      "the URL the provider sends the browser back to after console sign-in, as registered at the provider: svc's " +
      'own address followed by `/login/oidc/callback` (e.g. `https://svc.example.com/login/oidc/callback`). svc never ' +
      'derives it from a request\'s `Host`. Set with the issuer and client id, the console offers "Sign in with ' +
      '<provider>"',
    parse: optional(redirectUrl),
  }),
  setting({
    key: 'oidcProviderName',
    env: 'SVC_OIDC_PROVIDER_NAME',
    arg: 'NAME',
    // No default shown in --help: "single sign-on" would widen its columns past 115 (authn/oidc.ts applies it).
    unset: '"single sign-on"',
    help: 'the provider as the sign-in button names it',
    docs: 'the provider\'s name on the console\'s sign-in button ("Sign in with <name>")',
    parse: optional((raw: string, at: Reading) => {
      const name = raw.trim();
      if (name === '' || name.length > 64) throw new SettingError(`${at.name} must be 1 to 64 characters`);
      return name;
    }),
  }),
  setting({
    key: 'oidcCaFile',
    env: 'SVC_OIDC_CA_FILE',
    arg: 'FILE',
    unset: "the system's CAs",
    help: "PEM CA that signed the provider's certificate",
    docs: "a PEM file of the CA that signed the provider's certificate; unset, the system's CAs are trusted",
    parse: optional(absolutePath),
  }),
  setting({
    key: 'oidcUsernameClaim',
    env: 'SVC_OIDC_USERNAME_CLAIM',
    arg: 'CLAIM',
    default: 'sub',
    help: 'the claim that names the user',
    docs: "the claim whose value, after the username prefix, is the user's name (`sub`, `email`, `preferred_username`)",
    parse: claimName,
  }),
  setting({
    key: 'oidcGroupsClaim',
    env: 'SVC_OIDC_GROUPS_CLAIM',
    arg: 'CLAIM',
    default: 'groups',
    help: "the claim that lists the user's groups",
    docs: "the claim listing the user's groups (a string or an array of strings); each, after the groups prefix, is a group RoleBindings may name",
    parse: claimName,
  }),
  setting({
    key: 'oidcUsernamePrefix',
    env: 'SVC_OIDC_USERNAME_PREFIX',
    arg: 'PREFIX',
    default: 'oidc:',
    help: "put before the provider's usernames",
    docs: "put before the username claim's value, so a provider's users never collide with local ones (`-`: none)",
    parse: (raw: string) => (raw === '-' ? '' : raw),
  }),
  setting({
    key: 'oidcGroupsPrefix',
    env: 'SVC_OIDC_GROUPS_PREFIX',
    arg: 'PREFIX',
    default: 'oidc:',
    help: "put before the provider's group names",
    docs: 'put before each group of the groups claim (`-`: none)',
    parse: (raw: string) => (raw === '-' ? '' : raw),
  }),
] as const;
