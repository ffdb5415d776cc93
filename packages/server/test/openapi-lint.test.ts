import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

/**
 * Every OpenAPI document svc serves, linted by Redocly's recommended ruleset (issue 30 item 6): no errors, operation
 * ids unique, and every operation documents its 4xx answers.
 */
describe('OpenAPI lint (sqlite)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ backend: 'sqlite' });
  }, 60_000);
  afterAll(() => t?.close());

  const documents = async (): Promise<Array<[string, string]>> => {
    const index = (await t.anonymous('GET', '/openapi/v3')).body.paths as Record<string, { serverRelativeURL: string }>;
    const urls = [...Object.values(index).map((p) => p.serverRelativeURL), '/openapi.json'];
    return Promise.all(urls.map(async (url) => [url, (await t.anonymous('GET', url)).text] as [string, string]));
  };

  it('finds no error and no warning in any served document', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const found: string[] = [];
    for (const [url, source] of await documents()) {
      const problems = await lintFromString({ source, absoluteRef: `${url.split('?')[0]}.json`, config });
      for (const p of problems)
        found.push(`${url.split('?')[0]} ${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    }
    expect(found).toEqual([]);
  });

  it('names GET users and GET users/- apart, and documents the 4xx answers as problem+json and Status', async () => {
    const doc = (await t.anonymous('GET', '/openapi/v3/apis/api.console.svc.run/v1alpha1')).body;
    const base = '/apis/api.console.svc.run/v1alpha1/users';
    expect(doc.paths[base].get.operationId).toBe('getApisApiConsoleSvcRunV1alpha1Users');
    expect(doc.paths[`${base}/-`].get.operationId).toBe('getApisApiConsoleSvcRunV1alpha1UsersSelf');
    const person = (await t.anonymous('GET', '/openapi/v3/apis/people.svc.run/v1alpha1')).body;
    const replace = person.paths['/apis/people.svc.run/v1alpha1/persons/{name}'].put;
    expect(Object.keys(replace.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', 'default']);
    expect(person.components.responses.Conflict.content).toEqual({
      'application/problem+json': { schema: { $ref: '#/components/schemas/run.svc.meta.v1.Problem' } },
      'application/json': { schema: { $ref: '#/components/schemas/run.svc.meta.v1.Status' } },
    });
  });

  it('gives generated clients a typed Person status, and an open status where a model declares a bare one', async () => {
    const source = (await t.anonymous('GET', '/openapi/v3/apis/people.svc.run/v1alpha1')).text;
    const types = astToString(await openapiTS(source));
    expect(types).toContain('ageGroup?: "unknown" | "child" | "teen" | "adult" | "senior";');
    expect(types).not.toMatch(/status\?: Record<string, never>/);
    const everything = astToString(await openapiTS((await t.anonymous('GET', '/openapi.json')).text));
    expect(everything).not.toMatch(/status\?: Record<string, never>/);
  });
});
