/**
 * What every connection svc opens to PostgreSQL asks of the server's end: a client cut off silently (packets dropped,
 * no reset) is found dead within about six seconds (three idle, then three probes a second apart), and its session
 * ends, taking its advisory locks (the controllers' lease, the writers' lock) and its open transaction with it.
 * Without it PostgreSQL follows the kernel's defaults (two hours), and a replica behind a dead link would keep the
 * lease, and block every writer, that long. The lease's holder gives it up sooner (its heartbeat fails within four
 * seconds, postgres-lease.ts), so no two servers lead at once. Startup options any role may set for its own session.
 */
export const SESSION_LIVENESS =
  '-c tcp_keepalives_idle=3 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 -c tcp_user_timeout=5000';
