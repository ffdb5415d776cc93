import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { BACKENDS, startTestServer, type TestServer } from './harness.js';

const PEOPLE = 'apis/people.svc.run/v1alpha1';
const UC = '/apis/uc.api.people.svc.run/v1alpha1';

type Document = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

/**
 * The OpenAPI documents and the API reference page over HTTP (issue 15 item 2): readable without signing in, following
 * the plugins that run, cached by hash as the Kubernetes API server does, and valid OpenAPI.
 */
describe('OpenAPI (sqlite)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend: 'sqlite' });
  }, 60_000);
  afterAll(() => t.close());

  const index = async () => (await t.anonymous('GET', '/openapi/v3')).body.paths as Record<string, any>;

  it('lists the people group in the index, with a hashed URL that serves its document', async () => {
    const paths = await index();
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([PEOPLE, 'apis/uc.api.people.svc.run/v1alpha1', 'api/v1alpha1']),
    );
    const url = paths[PEOPLE].serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/people\.svc\.run\/v1alpha1\?hash=[0-9A-F]{64}$/);
    const document = await t.anonymous('GET', url);
    expect(document.status).toBe(200);
    expect(document.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(document.headers['cache-control']).toBe('public, immutable');
    expect(document.headers.etag).toBe(`"${url.split('hash=')[1]}"`);
  });

  it('describes Person with its group, version and kind, and the operations on persons', async () => {
    const { body } = await t.anonymous('GET', `/openapi/v3/${PEOPLE}`);
    const doc = body as Document;
    expect(doc.openapi).toBe('3.0.0');
    const person = doc.components.schemas['run.svc.people.v1alpha1.Person'];
    expect(person['x-kubernetes-group-version-kind']).toEqual([
      { group: 'people.svc.run', kind: 'Person', version: 'v1alpha1' },
    ]);
    expect(person.properties.spec.properties.age).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 150,
      description: 'Age in years; the status’s age group follows it.',
    });
    expect(person.properties.spec.properties.otherPerson).toEqual({
      $ref: '#/components/schemas/run.svc.people.v1alpha1.Person',
    });
    const methods = (path: string) => Object.keys(doc.paths[path]!).filter((k) => k !== 'parameters');
    const base = `/${PEOPLE}/persons`;
    expect(Object.keys(doc.paths)).toEqual([base, `${base}/{name}`, `${base}/{name}/status`]);
    expect(methods(base)).toEqual(['get', 'post', 'delete']);
    expect(methods(`${base}/{name}`)).toEqual(['get', 'put', 'patch', 'delete']);
    expect(methods(`${base}/{name}/status`)).toEqual(['get', 'put', 'patch']);
  });

  it('answers 304 to a matching If-None-Match, and redirects an old hash to the current one', async () => {
    const first = await t.anonymous('GET', '/openapi/v3');
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await t.anonymous('GET', '/openapi/v3', undefined, { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const current = (await index())[PEOPLE].serverRelativeURL as string;
    const stale = await t.anonymous('GET', `/openapi/v3/${PEOPLE}?hash=0123`);
    expect(stale.status).toBe(301);
    expect(stale.headers.location).toBe(current);
    expect((await t.anonymous('GET', '/openapi/v3/apis/nothing.example.com/v1')).status).toBe(404);
  });

  it("documents a custom route's declared schemas in its group's document", async () => {
    const doc = (await t.anonymous('GET', '/openapi/v3/apis/uc.api.people.svc.run/v1alpha1')).body as Document;
    const create = doc.paths[`${UC}/persons`]!.post;
    expect(create.summary).toBe('Create a person that belongs to you');
    const name = (create.requestBody.content['application/json'].schema.$ref as string).split('/').pop()!;
    expect(doc.components.schemas[name].required).toEqual(['metadata', 'spec']);
    expect(doc.components.schemas[name].properties.spec.properties.age).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 150,
      description: 'Age in years; the status’s age group follows it.',
    });
  });

  it('refuses a body that breaks a custom route’s declared schema with a 400 naming the path', async () => {
    const bad = await t.request('POST', `${UC}/persons`, { metadata: { name: 'kim' }, spec: { age: 'old' } });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.body.errors).toEqual([{ path: '/spec/age', message: 'must be integer' }]);
    expect(bad.body.detail).toBe(`the body of POST ${UC}/persons does not match its schema: /spec/age must be integer`);
    const missing = await t.request('POST', `${UC}/persons`, { spec: {} });
    expect(missing.body.errors).toEqual([{ path: '/metadata', message: 'is required' }]);
    expect((await t.request('POST', `${UC}/persons`, { metadata: { name: 'kim' }, spec: { age: 40 } })).status).toBe(
      201,
    );
  });

  it("drops a stopped plugin's groups from the index and brings them back when it starts", async () => {
    const state = (enable: boolean) => t.request('PUT', `${CONSOLE}/plugins/people/plugin-state`, { enable });
    expect((await state(false)).status).toBe(200);
    expect(Object.keys(await index())).not.toContain(PEOPLE);
    expect(Object.keys(await index())).not.toContain('apis/uc.api.people.svc.run/v1alpha1');
    expect((await t.anonymous('GET', `/openapi/v3/${PEOPLE}`)).status).toBe(404);
    const all = (await t.anonymous('GET', '/openapi.json')).body as Document;
    expect(Object.keys(all.paths).some((p) => p.includes('people.svc.run'))).toBe(false);
    expect((await state(true)).status).toBe(200);
    expect(Object.keys(await index())).toContain(PEOPLE);
  });

  it('serves one OpenAPI 3.1 document of every route, core routes included', async () => {
    const doc = (await t.anonymous('GET', '/openapi.json')).body as Document;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/login',
        '/version',
        '/openapi/v3',
        '/docs',
        '/api/v1alpha1/users',
        `/${PEOPLE}/persons/{name}/status`,
        '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens',
        '/apis/api.console.svc.run/v1alpha1/plugins/install',
        `${UC}/persons`,
      ]),
    );
    expect(doc.paths['/openapi/v3']!.get.security).toEqual([]);
    const createUser = doc.paths['/apis/api.console.svc.run/v1alpha1/users']!.post;
    expect(createUser.summary).toBe('Create a user');
    const body = (createUser.requestBody.content['application/json'].schema.$ref as string).split('/').pop()!;
    expect(doc.components.schemas[body].required).toEqual(['name', 'password']);
    expect(Object.keys(createUser.responses)).toEqual(['201', '400', '401', '403', '409', '413', '415', 'default']);
    expect(createUser.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
  });

  it('serves documents that are valid OpenAPI, with every reference resolving', async () => {
    const urls = [...Object.values(await index()).map((p) => p.serverRelativeURL as string), '/openapi.json'];
    for (const url of urls) {
      const validator = new Validator();
      const result = await validator.validate((await t.anonymous('GET', url)).body);
      expect({ url, errors: result.errors }).toEqual({ url, errors: undefined });
      expect(() => validator.resolveRefs()).not.toThrow();
    }
  });

  it('serves /docs with same-origin assets only, under a self-only policy, and the assets load', async () => {
    const page = await t.anonymous('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'",
    );
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual([
      '/docs/swagger-ui.css',
      '/docs/favicon-32x32.png',
      '/docs/swagger-ui-bundle.js',
      '/docs/docs.js',
    ]);
    const types: Record<string, RegExp> = { css: /^text\/css/, png: /^image\/png/, js: /^text\/javascript/ };
    for (const asset of assets) {
      const loaded = await t.anonymous('GET', asset);
      expect({ asset, status: loaded.status }).toEqual({ asset, status: 200 });
      expect(loaded.headers['content-type']).toMatch(types[asset.split('.').pop()!]!);
    }
    const start = (await t.anonymous('GET', '/docs/docs.js')).text;
    expect(start).toContain("url: '/openapi.json'");
    expect(() => new Function(start)).not.toThrow();
    expect((await t.anonymous('GET', '/docs/package.json')).status).toBe(404);
    const zipped = await t.anonymous('GET', '/docs/swagger-ui-bundle.js', undefined, { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
  });
});

describe.each(BACKENDS.filter((b) => b === 'postgres'))('OpenAPI (%s smoke)', (backend) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend });
  }, 60_000);
  afterAll(() => t.close());

  it('serves the index and the people document', async () => {
    const paths = (await t.anonymous('GET', '/openapi/v3')).body.paths;
    const doc = await t.anonymous('GET', paths[PEOPLE].serverRelativeURL);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.components.schemas)).toContain('run.svc.people.v1alpha1.Person');
  });
});
