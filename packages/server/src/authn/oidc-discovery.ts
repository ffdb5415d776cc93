import { readFile } from 'node:fs/promises';
import { Agent, fetch as undiciFetch } from 'undici';

/** The settings of single sign-on as authentication reads them (settings/oidc-settings.ts). */
export interface OidcSettings {
  issuerUrl: string;
  clientId: string;
  caFile?: string;
  usernameClaim: string;
  groupsClaim: string;
  usernamePrefix: string;
  groupsPrefix: string;
}

/** What svc reads of the provider's discovery document (OpenID Connect Discovery 1.0). */
export interface ProviderMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  id_token_signing_alg_values_supported?: string[];
}

export type HttpsFetch = (
  url: string,
  init?: { headers?: Headers | Record<string, string>; signal?: AbortSignal | null; method?: string; body?: unknown },
) => Promise<Response>;

/**
 * A fetch that trusts the provider's CA (SVC_OIDC_CA_FILE) besides nothing else when one is given, and follows no
 * redirect: the discovery document and keys must be where the issuer says.
 */
export async function httpsFetchFor(caFile: string | undefined): Promise<HttpsFetch> {
  const ca = caFile === undefined ? undefined : await readFile(caFile, 'utf8');
  const dispatcher = ca === undefined ? undefined : new Agent({ connect: { ca } });
  return async (url, init = {}) => {
    if (!url.startsWith('https://')) throw new Error(`${url} is not an https URL`);
    const headers = init.headers ? Object.fromEntries(new Headers(init.headers)) : undefined;
    // A method and body only for the token endpoint (console sign-in, openid-client's form-encoded POST).
    const { method, body } = init as { method?: string; body?: string | URLSearchParams };
    const answer = await undiciFetch(url, {
      method,
      body,
      headers,
      signal: init.signal ?? undefined,
      redirect: 'manual',
      dispatcher,
    });
    return answer as unknown as Response;
  };
}

/**
 * Reads `<issuer>/.well-known/openid-configuration` and checks that it names the same issuer, as the spec requires
 * (a document naming another would let that other one's tokens in).
 */
export async function discover(issuerUrl: string, fetch: HttpsFetch): Promise<ProviderMetadata> {
  const url = `${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const answer = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
  const document = (await answer.json()) as Partial<ProviderMetadata>;
  if (document.issuer !== issuerUrl) {
    throw new Error(`${url} names issuer "${String(document.issuer)}", not "${issuerUrl}"`);
  }
  if (typeof document.jwks_uri !== 'string' || !document.jwks_uri.startsWith('https://')) {
    throw new Error(`${url} names no https jwks_uri`);
  }
  return document as ProviderMetadata;
}
