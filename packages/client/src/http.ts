import { problemOf, SvcApiError } from './errors.js';

/** How to reach svc. */
export interface ClientOptions {
  /** The server's address, such as `http://127.0.0.1:8090` or `https://svc.example.com:8443`. */
  baseUrl: string | URL;
  /** A personal access token (`pat_…`), sent as `Authorization: Bearer`. */
  token?: string;
  /** PEM certificate(s) to trust over HTTPS, such as svc's own `<data dir>/tls/ca.crt`. Uses the `undici` package. */
  ca?: string | string[];
  /** An undici `Dispatcher` (an `Agent` with TLS options, a proxy) handed to fetch as is. */
  dispatcher?: unknown;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * In a browser, the page's cookies (`() => document.cookie`): requests then go with the browser's own session
   * (`credentials: 'same-origin'`), unsafe ones echo its `XSRF-TOKEN` cookie as `X-XSRF-TOKEN`, and `signIn` leaves the
   * session cookie to the browser (which hides Set-Cookie from scripts).
   */
  documentCookies?: () => string;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  /**
   * A JSON value, sent as `contentType` (default `application/json`); a string or bytes are sent as they are, and a
   * FormData as multipart.
   */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A request that never reached svc (refused connection, TLS failure, bad address). */
export class SvcConnectionError extends Error {
  override readonly name = 'SvcConnectionError';
}

const ACCEPT = 'application/json, application/problem+json';

interface Fetcher {
  fetch: typeof fetch;
  dispatcher?: unknown;
  madeAgent?: { destroy(): Promise<void> };
}

/** The one place requests leave: the base URL, the token, TLS trust, JSON in and out, problems as SvcApiError. */
export class Transport {
  readonly baseUrl: URL;
  private fetcher: Promise<Fetcher> | undefined;
  /** A password sign-in's session: its cookies, and the CSRF token every unsafe request echoes. */
  private session: { cookie: string; xsrf: string } | undefined;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = new URL(options.baseUrl);
  }

  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.baseUrl.href.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(one));
    }
    return url;
  }

  /** Sends a request; answers the Response when it is 2xx, throws SvcApiError with the problem otherwise. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = { accept: ACCEPT, ...this.options.headers, ...options.headers };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const unsafe = method !== 'GET' && method !== 'HEAD';
    if (this.session) {
      headers.cookie = this.session.cookie;
      if (unsafe) headers['x-xsrf-token'] = this.session.xsrf;
    }
    const documentCookies = this.options.documentCookies;
    const pageXsrf = documentCookies && unsafe ? cookieValue(documentCookies(), 'XSRF-TOKEN') : undefined;
    if (pageXsrf !== undefined) headers['x-xsrf-token'] = pageXsrf;
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) {
      // fetch writes the multipart content type, with its boundary.
      body = options.body;
    } else if (options.body !== undefined) {
      const raw = typeof options.body === 'string' || options.body instanceof Uint8Array;
      body = raw ? (options.body as BodyInit) : JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const { fetch: doFetch, dispatcher } = await (this.fetcher ??= this.makeFetcher());
    let response: Response;
    try {
      const init: RequestInit & { dispatcher?: unknown } = { method, headers, body, signal: options.signal };
      if (dispatcher) init.dispatcher = dispatcher;
      if (documentCookies) init.credentials = 'same-origin';
      response = await doFetch(url, init);
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      throw new SvcConnectionError(`cannot reach ${url.origin}: ${cause?.message ?? (error as Error).message}`, {
        cause: error,
      });
    }
    if (!response.ok) throw new SvcApiError(problemOf(response.status, response.statusText, await readBody(response)));
    return response;
  }

  /**
   * Signs in with a password (`POST /login`); later requests carry the session cookie and its CSRF header. For programs
   * outside a browser (a browser keeps the cookie itself); a personal access token is the usual credential.
   */
  async signIn(username: string, password: string): Promise<void> {
    const response = await this.send('POST', '/login', { body: { username, password } });
    if (this.options.documentCookies) return;
    const cookies = response.headers.getSetCookie().map((c) => c.split(';', 1)[0]!);
    const xsrf = cookies.find((c) => c.startsWith('XSRF-TOKEN='))?.slice('XSRF-TOKEN='.length) ?? '';
    this.session = { cookie: cookies.join('; '), xsrf };
  }

  /**
   * Ends the session (`POST /logout`); nothing when there is none. Answers the identity provider's logout URL when the
   * session began there and the provider has one (`endSessionUrl`): a browser goes there next.
   */
  async signOut(): Promise<string | undefined> {
    if (this.options.documentCookies) return endSessionUrlOf(await this.send('POST', '/logout'));
    if (!this.session) return undefined;
    try {
      return endSessionUrlOf(await this.send('POST', '/logout'));
    } finally {
      this.session = undefined;
    }
  }

  /** Sends a request and answers its JSON body. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return (await readBody(response)) as T;
  }

  /** Drops the connections of the Agent made for `ca` (a given dispatcher or fetch is the caller's to close). */
  async close(): Promise<void> {
    const made = this.fetcher && (await this.fetcher).madeAgent;
    this.fetcher = undefined;
    await made?.destroy();
  }

  private async makeFetcher(): Promise<Fetcher> {
    const { ca, dispatcher } = this.options;
    if (this.options.fetch) return { fetch: this.options.fetch, dispatcher };
    if (dispatcher || !ca) return { fetch: globalThis.fetch, dispatcher };
    // Node's global fetch takes no CA; undici's own fetch and Agent (the same library, from npm) do. Loaded only
    // here, so the client runs without it in a browser or over plain HTTP.
    const undici = await import('undici');
    const agent = new undici.Agent({ connect: { ca } });
    return { fetch: undici.fetch as unknown as typeof fetch, dispatcher: agent, madeAgent: agent };
  }
}

/** The decoded value of cookie `name` in a `document.cookie` string (`a=1; XSRF-TOKEN=x`), if it is there. */
export function cookieValue(cookies: string, name: string): string | undefined {
  for (const pair of cookies.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return decodeURIComponent(pair.slice(at + 1).trim());
  }
  return undefined;
}

async function endSessionUrlOf(response: Response): Promise<string | undefined> {
  if (response.status !== 200) return undefined;
  const url = ((await readBody(response)) as { endSessionUrl?: unknown } | undefined)?.endSessionUrl;
  return typeof url === 'string' ? url : undefined;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
