import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { eventually } from './eventually.js';
import { BACKENDS, type Backend, PEOPLE_PLUGINS, PERSONS, pluginReport, startTestServer } from './harness.js';
import { multipart, peopleV2, tgzOf } from './plugin-archives.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN_OBJECTS = '/apis/plugin.svc.run/v1alpha1/plugins';

describe.each(BACKENDS)('installed plugins across restarts (%s)', (backend: Backend) => {
  let work: string;
  const schema = `t_restart_${Math.random().toString(36).slice(2, 8)}`;
  const boot = (pluginsDirs: string[] = []) =>
    startTestServer({ backend, pluginsDirs, env: { SVC_DATA_DIR: path.join(work, 'data') }, schema });

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'svc-restart-'));
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it('keeps what was installed, and whether it runs', async () => {
    const first = await boot();
    const upload = async (folder: string) => {
      const { body, headers } = multipart(await tgzOf(folder));
      return first.request('POST', `${PLUGINS}/install`, body, headers);
    };
    expect((await upload(path.join(PEOPLE_PLUGINS, 'people'))).status).toBe(201);
    expect((await upload(path.join(FIXTURES, 'plugins-lifecycle/people-addon'))).status).toBe(201);
    expect((await first.request('PUT', `${PLUGINS}/people/plugin-state`, { enable: true })).body.status.phase).toBe(
      'STARTED',
    );
    expect(
      (
        await first.request('POST', PERSONS, {
          apiVersion: 'people.svc.run/v1alpha1',
          kind: 'Person',
          metadata: { name: 'kept' },
          spec: { age: 3 },
        })
      ).status,
    ).toBe(201);
    // ada is declared in the plugin's extensions/; the controller has written her status.
    await eventually(async () => (await first.request('GET', `${PERSONS}/ada`)).body.status !== undefined, 'ada');
    const ada = (await first.request('GET', `${PERSONS}/ada`)).body;
    await first.close({ keepData: true });

    const second = await boot();
    try {
      expect((await pluginReport(second, 'people')).phase).toBe('STARTED');
      expect((await second.request('GET', `${PERSONS}/kept`)).body.spec.age).toBe(3);
      // An unchanged declaration is not written again: the model's finalizer counts as part of it.
      const adaAgain = (await second.request('GET', `${PERSONS}/ada`)).body;
      expect(adaAgain.metadata.resourceVersion).toBe(ada.metadata.resourceVersion);
      expect(adaAgain.metadata.finalizers).toEqual(['people.svc.run/farewell']);
      const addon = (await second.request('GET', `${PLUGIN_OBJECTS}/people-addon`)).body;
      expect(addon).toMatchObject({ spec: { enabled: false }, status: { phase: 'RESOLVED' } });
    } finally {
      await second.close({ keepData: true });
    }
  });

  it('installs an archive found in SVC_PLUGINS_DIR at boot, and upgrades it when the archive changes', async () => {
    const drop = path.join(work, 'drop');
    await mkdir(drop, { recursive: true });
    await writeFile(path.join(drop, 'notes.tgz'), await tgzOf(path.join(FIXTURES, 'plugins-watch/notes')));
    const first = await boot([drop]);
    const notes = (await first.request('GET', `${PLUGIN_OBJECTS}/notes`)).body;
    expect(notes).toMatchObject({ spec: { enabled: true }, status: { phase: 'STARTED', source: 'archive' } });
    const installedNotes = path.join(work, 'data/plugins/notes');
    const folderBefore = (await stat(installedNotes)).ino;
    await first.close({ keepData: true });

    // The same archive again: nothing to do. A new one (people 1.1.0): installed and started.
    const v2 = await peopleV2(path.join(PEOPLE_PLUGINS, 'people'), work);
    await writeFile(path.join(drop, 'people-1.1.0.tgz'), await tgzOf(v2));
    const second = await boot([drop]);
    try {
      const people = (await second.request('GET', `${PLUGIN_OBJECTS}/people`)).body;
      expect(people).toMatchObject({ spec: { version: '1.1.0', enabled: true }, status: { phase: 'STARTED' } });
      expect((await second.request('GET', `${PERSONS}?fieldSelector=spec.nickname%3Dnone`)).status).toBe(200);
      // The unchanged archive was not unpacked again: same folder, same digest.
      expect((await stat(installedNotes)).ino).toBe(folderBefore);
      const again = (await second.request('GET', `${PLUGIN_OBJECTS}/notes`)).body;
      expect(again.metadata.annotations).toEqual(notes.metadata.annotations);
      expect(again.status.phase).toBe('STARTED');
    } finally {
      await second.close();
    }
  });
});
