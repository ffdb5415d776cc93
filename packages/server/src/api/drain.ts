/**
 * A graceful stop's drain (docs/api.md "Stopping"), after the Kubernetes API server's: from the first moment of a stop
 * `/readyz` answers 503, a new request is answered 503 with `Retry-After` and `Connection: close` (its client retries
 * on another replica), the requests in flight finish and their answers close their connections, and idle keep-alive
 * connections are closed, on the HTTP and HTTPS listeners alike. The listeners close once nothing is in flight, or
 * when the drain's time is up (what is still open then is cut).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The probes a draining server still answers itself (`/readyz` with 503). */
const PROBES = new Set(['/readyz', '/healthz', '/livez']);
/** How often idle connections are swept while draining: a connection becomes idle when its answer is sent. */
const SWEEP_MS = 50;

export class Drain {
  private started = false;
  private readonly servers = new Set<Server>();
  /** Answers not yet sent: followed from Node's own events, before any hook. */
  private readonly answers = new Set<ServerResponse>();
  private readonly idle: Array<() => void> = [];
  /** Upgraded sockets (WebSockets): Node forgets them, so closing a listener would not end them. */
  private readonly upgraded = new Set<Duplex>();

  get draining(): boolean {
    return this.started;
  }

  /** Follows `server`'s requests and upgraded sockets (the HTTP listener and the HTTPS one). */
  follow(server: Server): void {
    this.servers.add(server);
    // Prepended, so the count and the header are set before Fastify sees the request.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      this.answers.add(response);
      const done = () => {
        if (!this.answers.delete(response)) return;
        if (this.answers.size === 0) for (const resolve of this.idle.splice(0)) resolve();
      };
      response.once('finish', done);
      response.once('close', done);
      // A request answered while draining closes its connection: its client opens the next one elsewhere.
      if (this.started) closeAfter(response);
    });
    server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => {
      this.upgraded.add(socket);
      socket.once('close', () => this.upgraded.delete(socket));
    });
  }

  /** Whether a request arriving now is refused (the probes are still answered). */
  refuses(path: string): boolean {
    return this.started && !PROBES.has(path);
  }

  /** Starts draining: `/readyz` answers 503 from now on and idle connections are closed as they appear. */
  start(): void {
    if (this.started) return;
    this.started = true;
    // Answers whose headers are not out yet say `Connection: close`; the others' connections are swept once idle.
    for (const response of this.answers) closeAfter(response);
    const sweep = setInterval(() => this.closeIdle(), SWEEP_MS);
    sweep.unref();
    this.idle.push(() => clearInterval(sweep));
    this.closeIdle();
  }

  /**
   * Waits until no request is in flight, at most `budgetMs`, closing idle connections meanwhile; then closes what is
   * left, so the listeners can close. Answers how many requests were still in flight when the time was up.
   */
  async settle(budgetMs: number): Promise<number> {
    this.start();
    if (this.answers.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idle.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs))),
      ]);
      clearTimeout(timer);
    }
    const cut = this.answers.size;
    for (const resolve of this.idle.splice(0)) resolve();
    for (const server of this.servers) server.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    return cut;
  }

  private closeIdle(): void {
    for (const server of this.servers) server.closeIdleConnections();
  }
}

/** The answer says `Connection: close` (Node then closes the connection after it), unless its headers are out. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}
