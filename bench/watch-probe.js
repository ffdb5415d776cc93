// The latency probe of bench/watch.js, in a process of its own so that the load watchers' traffic does not delay its
// own clock: one watcher, and a writer at a steady rate; prints {"p50","p99","samples","writes"} as JSON.
// Usage: node bench/watch-probe.js URL RATE SECONDS
import { countingSocket } from './ws-counter.js';

const [url, rate, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
// The token the parent process made (every API needs credentials).
const AUTH = process.env.SVC_BENCH_AUTHORIZATION ? { authorization: process.env.SVC_BENCH_AUTHORIZATION } : {};
const BASE = '/apis/people.svc.run/v1alpha1/persons';
const OBJECTS = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const revision = (await (await fetch(`${url}${BASE}?size=1`, { headers: AUTH })).json()).metadata.resourceVersion;
const sent = new Map();
const samples = [];
/** Response times of the writes themselves: what of the latency is the write, not the watch. */
const responses = [];
const socket = await countingSocket(
  `${url}${BASE}?resourceVersion=${revision}`,
  { messages: 0 },
  (payload) => {
    const match = /"bench\.svc\.run\/tick":"(\d+)"/.exec(payload.toString('latin1'));
    const at = match && sent.get(Number(match[1]));
    if (at !== undefined) samples.push(performance.now() - at);
  },
  AUTH,
);
const perStep = rate / 100;
let n = 1_000_000;
const started = performance.now();
// The first second warms up (the client opens its connections); only writes sent after it are measured.
const WARMUP_MS = 1000;
const measuredFrom = started + WARMUP_MS;
const inFlight = [];
// Every 10 ms, the writes due by then: a steady rate, not a burst per second.
for (let step = 0; performance.now() - started < WARMUP_MS + seconds * 1000; step++) {
  const wait = started + step * 10 - performance.now();
  if (wait > 0) await sleep(wait);
  for (let i = 0; i < perStep; i++) {
    const tick = n++;
    const measured = performance.now() >= measuredFrom;
    if (measured) sent.set(tick, performance.now());
    const body = JSON.stringify({ metadata: { labels: { 'bench.svc.run/tick': String(tick) } } });
    const at = performance.now();
    inFlight.push(
      fetch(`${url}${BASE}/w-${tick % OBJECTS}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json', ...AUTH },
        body,
      }).then(async (response) => {
        await response.arrayBuffer();
        if (measured) responses.push(performance.now() - at);
      }),
    );
  }
}
await Promise.all(inFlight);
await sleep(300);
socket.close();
const quantile = (values, f) => {
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.floor(f * values.length))] ?? null;
};
console.log(
  JSON.stringify({
    p50: quantile(samples, 0.5),
    p99: quantile(samples, 0.99),
    samples: samples.length,
    writes: n - 1_000_000,
    writeP50: quantile(responses, 0.5),
    writeP99: quantile(responses, 0.99),
  }),
);
