import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { eventually } from './eventually.js';
import { BACKENDS, PEOPLE_PLUGINS, PERSONS, person, roleBinding, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN = '/apis/plugin.svc.run/v1alpha1/plugins/people';
const ROLES = '/api/v1alpha1/roles';
const BINDINGS = '/api/v1alpha1/rolebindings';
const CHOICE = 'plugin.svc.run/uninstall-data';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const STORED_PERSONS = 'people.svc.run/persons';

/**
 * An uninstall keeps the plugin's data unless the caller asks to delete it (`DELETE …/plugins/{name}?data=delete`):
 * the objects of its models and the objects it declared (issue 28, item 11); over HTTP, on both stores.
 */
describe.each(BACKENDS)('uninstalling a plugin, keeping or deleting its data (%s)', (backend) => {
  let t: TestServer;
  const installAndEnable = async () => {
    const { body, headers } = multipart(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')));
    const installed = await t.request('POST', `${PLUGINS}/install`, body, headers);
    expect(installed.status, installed.text).toBe(201);
    const started = await t.request('PUT', `${PLUGINS}/people/plugin-state`, { enable: true });
    expect(started.body.status.phase).toBe('STARTED');
  };
  const uninstall = async (query = '') => {
    const answer = await t.request('DELETE', `${PLUGIN}${query}`);
    expect(answer.status, answer.text).toBe(200);
    await eventually(async () => (await t.request('GET', PLUGIN)).status === 404, 'the plugin uninstalled');
    return answer.body;
  };
  const storedPersons = () => t.server.store.count(STORED_PERSONS);

  beforeAll(async () => {
    t = await startTestServer({ backend, pluginsDirs: [] });
    await installAndEnable();
    expect((await t.request('POST', PERSONS, person('kept', { age: 3 }))).status).toBe(201);
    expect((await t.request('PATCH', `${PERSONS}/ada`, { spec: { age: 99 } }, MERGE)).status).toBe(200);
    const binding = roleBinding('rita-views-persons', 'people-role-view-persons', { users: ['rita'] });
    expect((await t.request('POST', BINDINGS, binding)).status).toBe(201);
  });
  afterAll(() => t.close());

  it('refuses a choice other than keep or delete with a 400 naming the parameter, and uninstalls nothing', async () => {
    for (const query of ['?data=purge', '?data=keep&data=delete', '?data=']) {
      const refused = await t.request('DELETE', `${PLUGIN}${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toMatch(
        /^the query parameter data of a Plugin DELETE must be one of keep, delete \(given once; keep when absent\)/,
      );
    }
    const collection = await t.request('DELETE', '/apis/plugin.svc.run/v1alpha1/plugins?data=all');
    expect(collection.status).toBe(400);
    expect(collection.body.detail).toMatch(/^the query parameter data of a Plugin DELETE must be one of keep, delete/);
    const plugin = (await t.request('GET', PLUGIN)).body;
    expect(plugin.metadata.deletionTimestamp).toBeUndefined();
    expect(plugin.status.phase).toBe('STARTED');
    expect(plugin.status.models).toEqual([STORED_PERSONS]);
  });

  it('lets nobody write the choice on the Plugin ahead of an uninstall', async () => {
    const patched = await t.request('PATCH', PLUGIN, { metadata: { annotations: { [CHOICE]: 'delete' } } }, MERGE);
    expect(patched.status).toBe(400);
    expect(patched.body.detail).toBe(
      `plugin "people": annotation ${CHOICE} is written by the DELETE that uninstalls it (?data=keep or ?data=delete)`,
    );
    expect((await t.request('GET', PLUGIN)).body.metadata.annotations?.[CHOICE]).toBeUndefined();
  });

  it("keeps its data by default: installed again, it finds the users' objects and their edits", async () => {
    const ada = (await t.request('GET', `${PERSONS}/ada`)).body;
    const deleting = await uninstall();
    expect(deleting.metadata.annotations[CHOICE]).toBe('keep');
    expect(await storedPersons()).toBe(4);
    expect((await t.request('GET', `${ROLES}/people-role-view-persons`)).status).toBe(404);
    await installAndEnable();
    const adaAgain = (await t.request('GET', `${PERSONS}/ada`)).body;
    expect(adaAgain.spec.age).toBe(99);
    expect(adaAgain.metadata.uid).toBe(ada.metadata.uid);
    expect((await t.request('GET', `${PERSONS}/kept`)).body.spec.age).toBe(3);
    expect((await t.request('GET', `${BINDINGS}/rita-views-persons`)).status).toBe(200);
  });

  it('deletes its data when asked, while it runs: the objects of its model and what it declared', async () => {
    const ada = (await t.request('GET', `${PERSONS}/ada`)).body;
    const deleting = await uninstall('?data=delete');
    expect(deleting.metadata.annotations[CHOICE]).toBe('delete');
    expect(await storedPersons()).toBe(0);
    for (const role of ['people-role-view-persons', 'people-role-manage-persons', 'people-role-manage-own-persons']) {
      expect((await t.request('GET', `${ROLES}/${role}`)).status).toBe(404);
    }
    // A user's binding to one of its templates is the user's: it stays, waiting, and grants nothing.
    expect((await t.request('GET', `${BINDINGS}/rita-views-persons`)).status).toBe(200);
    await installAndEnable();
    const fresh = (await t.request('GET', `${PERSONS}/ada`)).body;
    expect(fresh.spec.age).toBe(36);
    expect(fresh.metadata.uid).not.toBe(ada.metadata.uid);
    expect((await t.request('GET', `${PERSONS}/kept`)).status).toBe(404);
  });

  it('deletes the data of a stopped plugin too, though its models are not served', async () => {
    expect((await t.request('POST', PERSONS, person('late', { age: 5 }))).status).toBe(201);
    expect((await t.request('PUT', `${PLUGINS}/people/plugin-state`, { enable: false })).body.status.phase).toBe(
      'STOPPED',
    );
    expect(await storedPersons()).toBe(4);
    await uninstall('?data=delete');
    expect(await storedPersons()).toBe(0);
  });
});
