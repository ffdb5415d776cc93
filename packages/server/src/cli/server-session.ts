import http from 'node:http';
import https from 'node:https';

/** A JSON answer from the server, with the problem's detail as the error when it failed. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export class ServerError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * A conversation with a running svc as one user: signed in with a password (session cookie and CSRF header, signed
 * out at the end) or holding a bearer token. node:https rather than fetch, because fetch in Node 20 cannot be given a
 * CA without a dependency, and svc's own certificate is signed by a CA made under its data dir.
 */
export class ServerSession {
  private cookies: string[] = [];
  private xsrf: string | undefined;

  constructor(
    private readonly server: URL,
    private readonly options: { ca?: string; token?: string },
  ) {}

  async signIn(username: string, password: string): Promise<void> {
    const answer = await this.request('POST', '/login', { username, password });
    const setCookie = answer.headers['set-cookie'] ?? [];
    this.cookies = setCookie.map((c) => c.split(';')[0]!);
    this.xsrf = this.cookies.find((c) => c.startsWith('XSRF-TOKEN='))?.slice('XSRF-TOKEN='.length);
  }

  async signOut(): Promise<void> {
    if (this.cookies.length > 0) await this.request('POST', '/logout').catch(() => undefined);
    this.cookies = [];
  }

  /** Sends a request and answers its JSON body; a 4xx/5xx throws ServerError with the problem's detail. */
  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json, application/problem+json' };
    if (payload) headers['content-type'] = 'application/json';
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (this.cookies.length > 0) headers.cookie = this.cookies.join('; ');
    if (this.xsrf && method !== 'GET') headers['x-xsrf-token'] = this.xsrf;
    const url = new URL(path, this.server);
    const transport = url.protocol === 'https:' ? https : http;
    const answer = await new Promise<Answer>((resolve, reject) => {
      const request = transport.request(url, { method, headers, ca: this.options.ca, timeout: 30_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
        });
      });
      request.on('timeout', () => request.destroy(new Error(`${url.origin} did not answer within 30 s`)));
      request.on('error', reject);
      request.end(payload);
    });
    if (answer.status >= 400) {
      const detail = (answer.body as { detail?: unknown } | undefined)?.detail;
      throw new ServerError(answer.status, typeof detail === 'string' ? detail : `HTTP ${answer.status}`);
    }
    return answer;
  }
}
