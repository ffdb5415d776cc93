import { it } from 'vitest';
import { startAuthServer, signIn, ADMIN, ADMIN_PASSWORD, createUser } from './authn-helpers.js';
import { PEOPLE_PLUGINS } from './harness.js';
import { classifyRequest } from '../src/authz/request-info.js';
it('probe', async () => {
  const t = await startAuthServer({}, [PEOPLE_PLUGINS]);
  const admin = await signIn(t, ADMIN, ADMIN_PASSWORD);
  await createUser(admin, 'viewer', 'viewer-password', ['people-role-view-persons']);
  const viewer = await signIn(t, 'viewer', 'viewer-password');
  const tok = async (b: any, roles: string[]) => (await b.request('POST', '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens', { spec: { name: 'x', roles } })).body.metadata.annotations['security.svc.run/access-token'];
  const at = await tok(admin, ['super-role']); const vt = await tok(viewer, ['people-role-view-persons']);
  const url = '/apis/people.svc.run/v1alpha1/persons/ada';
  for (const [label, token] of [['admin', at], ['viewer', vt]] as const) {
    const req = { method: 'GET', url, ip: '127.0.0.1', headers: { authorization: `Bearer ${token}` } } as never;
    const p = await t.server.authn.authenticator.authenticate(req);
    const roles = (t.server as any).rbac?.service;
    const n = 100000; let t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await t.server.authn.authenticator.authenticate(req);
    console.log(label, 'authn', Number(process.hrtime.bigint() - t0) / n);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) classifyRequest({ method: 'GET', path: url, query: {}, isWebSocket: false });
    console.log(label, 'classify', Number(process.hrtime.bigint() - t0) / n);
    const r = await t.server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    console.log(label, r.statusCode, JSON.stringify(p));
    t0 = process.hrtime.bigint();
    for (let i = 0; i < 5000; i++) await t.server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    console.log(label, 'inject', Number(process.hrtime.bigint() - t0) / 5000);
  }
  await t.close();
});
