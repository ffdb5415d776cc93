// The cost of OIDC ID tokens as bearer tokens (docs/performance.md, the issue 34 note), in one run: GET one object with
// an ID token (its verification cached) against the same GET with a personal access token; and, in process, one
// verification of a token not seen before (keys cached, signature checked) and one of a cached token.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { BENCH_ADMIN_PASSWORD, load, login, startSvc, threadCpuSeconds, tokenHeader } from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (file) => path.join(root, 'packages/server/dist', file);
const { loadTlsMaterial } = await import(dist('tls/certificates.js'));
const { OidcTokens } = await import(dist('authn/oidc-tokens.js'));
const { httpsFetchFor } = await import(dist('authn/oidc-discovery.js'));
const DURATION = Number(process.argv[process.argv.indexOf('--duration') + 1]) || 5;
const CLIENT_ID = 'svc-bench';
const TARGET = '/api/v1alpha1/roles/authenticated';

/** A minimal issuer over HTTPS: discovery and one RS256 key. */
async function startIssuer(dir) {
  const tls = await loadTlsMaterial({ dataDir: dir, hosts: [] });
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  let url = '';
  const server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const body =
      request.url === '/jwks'
        ? { keys: [jwk] }
        : { issuer: url, jwks_uri: `${url}/jwks`, response_types_supported: ['code'] };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${server.address().port}`;
  const sign = (claims = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: url,
      aud: CLIENT_ID,
      sub: 'bench',
      groups: ['admins'],
      iat: now,
      exp: now + 3600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
      .sign(privateKey);
  };
  return { url, caFile: tls.caFile, sign, close: () => server.close() };
}

/** Microseconds per call of `authenticate` over `tokens`, after a warm-up. */
async function perCall(oidc, tokens) {
  for (const token of tokens.slice(0, 200)) await oidc.authenticate(token);
  const started = process.hrtime.bigint();
  for (const token of tokens) await oidc.authenticate(token);
  return Number(process.hrtime.bigint() - started) / 1000 / tokens.length;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-oidc-'));
const issuerDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-issuer-'));
try {
  const issuer = await startIssuer(issuerDir);
  const settings = {
    issuerUrl: issuer.url,
    clientId: CLIENT_ID,
    usernameClaim: 'sub',
    groupsClaim: 'groups',
    usernamePrefix: 'oidc:',
    groupsPrefix: 'oidc:',
  };
  const oidc = new OidcTokens(settings, await httpsFetchFor(issuer.caFile));
  const fresh = await Promise.all(Array.from({ length: 2000 }, (_, i) => issuer.sign({ sub: `user-${i}` })));
  const uncachedUs = await perCall(oidc, fresh);
  const one = await issuer.sign();
  const cachedUs = await perCall(
    oidc,
    Array.from({ length: 20000 }, () => one),
  );

  const server = await startSvc(dataDir, path.join(root, 'plugins'), {
    SVC_OIDC_ISSUER_URL: issuer.url,
    SVC_OIDC_CLIENT_ID: CLIENT_ID,
    SVC_OIDC_CA_FILE: issuer.caFile,
  });
  const admin = await login(server.url, 'admin', BENCH_ADMIN_PASSWORD);
  const bound = await fetch(`${server.url}/api/v1alpha1/rolebindings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...admin },
    body: JSON.stringify({
      apiVersion: 'v1alpha1',
      kind: 'RoleBinding',
      metadata: { name: 'oidc-admins' },
      roleRef: { apiGroup: '', kind: 'Role', name: 'super-role' },
      subjects: [{ apiGroup: '', kind: 'Group', name: 'oidc:admins' }],
    }),
  });
  if (bound.status !== 201) throw new Error(`binding: ${bound.status} ${await bound.text()}`);
  const patAuth = await tokenHeader(server.url, admin, ['super-role']);
  const oidcAuth = { authorization: `Bearer ${one}` };
  const url = `${server.url}${TARGET}`;
  // The server's main-thread CPU time per request besides requests per second: on a shared machine it moves far less.
  const pid = server.child.pid;
  const measured = async (headers) => {
    const before = threadCpuSeconds(pid);
    const run = await load({ url, duration: DURATION, headers });
    return { ...run, cpuUs: ((threadCpuSeconds(pid) - before) * 1e6) / run.total };
  };
  await load({ url, duration: DURATION, headers: patAuth });
  await load({ url, duration: DURATION, headers: oidcAuth });
  // Interleaved, best of two each: the machine is shared and noisy.
  const runs = { pat: [], oidc: [] };
  for (let round = 0; round < 2; round++) {
    runs.pat.push(await measured(patAuth));
    runs.oidc.push(await measured(oidcAuth));
  }
  await server.stop();
  issuer.close();
  const best = (list) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const leastCpu = (list) => Math.min(...list.map((run) => run.cpuUs));
  const pat = best(runs.pat);
  const id = best(runs.oidc);
  for (const run of [pat, id]) if (run.errors) throw new Error(`${run.errors} requests failed`);
  console.log(`ID token verified (keys cached, signature checked)   ${uncachedUs.toFixed(1)} µs a token`);
  console.log(`ID token seen before (verification cached)           ${cachedUs.toFixed(2)} µs a request`);
  console.log(`GET one object, personal access token               ${pat.rps.toFixed(0)} req/s`);
  const [patCpu, oidcCpu] = [leastCpu(runs.pat), leastCpu(runs.oidc)];
  console.log(`server CPU a GET, personal access token              ${patCpu.toFixed(0)} µs`);
  console.log(
    `server CPU a GET, ID token (cached)                  ${oidcCpu.toFixed(0)} µs  (${((oidcCpu / patCpu) * 100).toFixed(1)}% of the personal access token's)`,
  );
  console.log(
    `GET one object, ID token (cached)                    ${id.rps.toFixed(0)} req/s  (${((id.rps / pat.rps) * 100).toFixed(1)}% of the personal access token)`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(issuerDir, { recursive: true, force: true });
}
