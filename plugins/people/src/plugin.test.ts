/**
 * The people plugin in a real svc (the @svc/plugin-testing harness): its declared persons are there, the reconciler
 * fills a new person's status, and the stats route counts from the index.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSvc, type TestSvc } from '@svc/plugin-testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from './person.js';
import { CONSOLE_API_VERSION, PEOPLE_GROUP, PEOPLE_VERSION } from './vocabulary.js';

const PLUGIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the people plugin in svc', () => {
  let svc: TestSvc;
  const persons = () =>
    svc.client.resource<Person>({ group: PEOPLE_GROUP, version: PEOPLE_VERSION, plural: 'persons' });

  beforeAll(async () => {
    svc = await startSvc({ plugins: [PLUGIN] });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('starts, with the persons it declares', async () => {
    expect((await svc.pluginStatus('people'))?.phase).toBe('STARTED');
    const names = (await persons().list()).items.map((p) => p.metadata.name).sort();
    expect(names).toEqual(['ada', 'alan', 'grace']);
  });

  it('puts a new person in an age group', async () => {
    await persons().create({
      apiVersion: `${PEOPLE_GROUP}/${PEOPLE_VERSION}`,
      kind: 'Person',
      metadata: { name: 'tim' },
      spec: { name: 'Tim', age: 15, gender: 'MALE' },
    });
    await expect.poll(async () => (await persons().get('tim')).status?.ageGroup).toBe('teen');
  });

  it('counts persons by gender', async () => {
    const stats = await svc.client.request<{ total: number; byGender: Record<string, number> }>(
      'GET',
      `/apis/${CONSOLE_API_VERSION}/stats`,
    );
    expect(stats.total).toBe(4);
    expect(stats.byGender.MALE).toBe(2);
  });
});
