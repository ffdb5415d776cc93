/**
 * The console's page starts its first two API calls before any module loads (an inline script in
 * packages/console/index.html, when the browser holds a session cookie): who is signed in and the plugin UIs. The
 * client takes each answer here once instead of asking again, so the console's start waits for one round trip, made
 * while its code loads. An answer that is not 2xx (the session has ended) is asked for afresh.
 */
declare global {
  interface Window {
    /** Pending answers by path (`/apis/…`), as index.html started them. */
    svcEarly?: Record<string, Promise<Response> | undefined>;
  }
}

/** `fetch`, but a GET that index.html already started is answered by that request (once). */
export function fetchOrTakeEarly(input: URL | RequestInfo, init?: RequestInit): Promise<Response> {
  const early = takeEarly(input, init);
  if (!early) return fetch(input, init);
  return early.then(
    (response) => (response.ok ? response : fetch(input, init)),
    () => fetch(input, init),
  );
}

function takeEarly(input: URL | RequestInfo, init?: RequestInit): Promise<Response> | undefined {
  const pending = window.svcEarly;
  if (!pending || (init?.method ?? 'GET') !== 'GET' || !(input instanceof URL)) return undefined;
  if (input.origin !== window.location.origin) return undefined;
  const key = `${input.pathname}${input.search}`;
  const early = pending[key];
  if (early) delete pending[key];
  return early;
}
