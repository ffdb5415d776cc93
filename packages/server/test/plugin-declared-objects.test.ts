import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE } from './auth-harness.js';
import { eventually } from './eventually.js';
import { BACKENDS, PEOPLE_PLUGINS, PERSONS, person, startTestServer, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

const PLUGINS = `${CONSOLE}/plugins`;
const PLUGIN = '/apis/plugin.svc.run/v1alpha1/plugins/people';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const DIGEST = 'plugin.svc.run/declared-digest';

/** A declared person of the people plugin's `extensions/persons.yaml`. */
const declaredPerson = (name: string, age: number) =>
  [
    'apiVersion: people.svc.run/v1alpha1',
    'kind: Person',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  name: ${name[0]!.toUpperCase()}${name.slice(1)}`,
    `  age: ${age}`,
    '  gender: FEMALE',
    '',
  ].join('\n');

/** The people plugin at `version`, declaring these persons instead of its own three. */
async function peopleDeclaring(into: string, version: string, persons: string[]): Promise<Buffer> {
  const folder = path.join(into, version, 'people');
  await cp(path.join(PEOPLE_PLUGINS, 'people'), folder, {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  const manifest = path.join(folder, 'plugin.yaml');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace(/version: 1\.0\.0/, `version: ${version}`));
  await writeFile(path.join(folder, 'extensions/persons.yaml'), persons.join('---\n'));
  return tgzOf(folder);
}

/**
 * Objects a plugin declares in `extensions/` are created when missing, and what users change in them is kept across
 * stop, start and upgrade (issue 28, item 11); over HTTP, on both stores.
 */
describe.each(BACKENDS)('declared objects across stop, start and upgrade (%s)', (backend) => {
  let t: TestServer;
  let scratch: string;
  const setEnabled = async (enable: boolean) => {
    const answer = await t.request('PUT', `${PLUGINS}/people/plugin-state`, { enable });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.status.phase as string;
  };
  const get = async (name: string) => (await t.request('GET', `${PERSONS}/${name}`)).body;
  const upgrade = async (archive: Buffer) => {
    const { body, headers } = multipart(archive);
    const answer = await t.request('POST', `${PLUGINS}/people/upgrade`, body, headers);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.status.phase as string;
  };
  const warnings = async () =>
    (await t.request('GET', `${PLUGINS}/people/logs`)).body.entries
      .filter((entry: { level: string }) => entry.level === 'warn')
      .map((entry: { message: string }) => entry.message) as string[];

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-declared-'));
    t = await startTestServer({ backend, pluginsDirs: [] });
    const { body, headers } = multipart(await tgzOf(path.join(PEOPLE_PLUGINS, 'people')));
    expect((await t.request('POST', `${PLUGINS}/install`, body, headers)).status).toBe(201);
    expect(await setEnabled(true)).toBe('STARTED');
  });
  afterAll(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("keeps a user's edit of a declared object, and its uid, when the plugin is disabled and enabled", async () => {
    const before = await get('ada');
    expect(before.spec.age).toBe(36);
    expect((await t.request('PATCH', `${PERSONS}/ada`, { spec: { age: 99 } }, MERGE)).status).toBe(200);
    expect(await setEnabled(false)).toBe('STOPPED');
    expect(await setEnabled(true)).toBe('STARTED');
    const after = await get('ada');
    expect(after.spec.age).toBe(99);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(await warnings()).toEqual([]);
  });

  it('creates a declared object a user deleted again at the next start, as declared', async () => {
    const alan = await get('alan');
    expect((await t.request('DELETE', `${PERSONS}/alan`)).status).toBe(200);
    // Its farewell finalizer is let go by the plugin's controller, then it is gone.
    await eventually(async () => (await t.request('GET', `${PERSONS}/alan`)).status === 404, 'alan gone');
    expect(await setEnabled(false)).toBe('STOPPED');
    expect(await setEnabled(true)).toBe('STARTED');
    const again = await get('alan');
    expect(again.spec).toEqual({ name: 'Alan Turing', age: 41, gender: 'MALE' });
    expect(again.metadata.uid).not.toBe(alan.metadata.uid);
    expect(again.metadata.labels['plugin.svc.run/plugin-name']).toBe('people');
  });

  it('creates what a new version declares, and updates an unchanged declared object to its new declaration', async () => {
    const v12 = await peopleDeclaring(scratch, '1.2.0', [
      declaredPerson('ada', 36),
      declaredPerson('alan', 41),
      declaredPerson('grace', 85),
      declaredPerson('hedy', 46),
    ]);
    const grace = await get('grace');
    expect(await upgrade(v12)).toBe('STARTED');
    expect((await get('hedy')).spec).toEqual({ name: 'Hedy', age: 46, gender: 'FEMALE' });
    // grace's declaration changed (its name, its otherPerson): nobody had changed her, so she follows it, same uid.
    const graceAfter = await get('grace');
    expect(graceAfter.spec).toEqual({ name: 'Grace', age: 85, gender: 'FEMALE' });
    expect(graceAfter.metadata.uid).toBe(grace.metadata.uid);
    expect(graceAfter.metadata.annotations[DIGEST]).not.toBe(grace.metadata.annotations[DIGEST]);
    // ada's declaration changed too (her name), but a user had changed her: kept, and the log says so.
    expect((await get('ada')).spec).toEqual({ name: 'Ada Lovelace', age: 99, gender: 'FEMALE' });
    expect(await warnings()).toEqual([
      'extensions/persons.yaml#1: Person "ada" was changed since svc wrote it, so this version\'s declaration of it ' +
        'was not applied; the changed object is kept',
    ]);
  });

  it('on upgrade, deletes what the new version no longer declares unless a user changed it', async () => {
    expect((await t.request('PATCH', `${PERSONS}/grace`, { spec: { age: 86 } }, MERGE)).status).toBe(200);
    const alan = await get('alan');
    const v13 = await peopleDeclaring(scratch, '1.3.0', [declaredPerson('ada', 37), declaredPerson('alan', 42)]);
    expect(await upgrade(v13)).toBe('STARTED');
    expect((await get('ada')).spec.age).toBe(99);
    const alanAfter = await get('alan');
    expect(alanAfter.spec).toEqual({ name: 'Alan', age: 42, gender: 'FEMALE' });
    expect(alanAfter.metadata.uid).toBe(alan.metadata.uid);
    // hedy, unchanged, goes with her declaration (through her farewell); grace, changed, stays as the user's.
    await eventually(async () => (await t.request('GET', `${PERSONS}/hedy`)).status === 404, 'hedy gone');
    const grace = await get('grace');
    expect(grace.spec.age).toBe(86);
    expect(grace.metadata.annotations?.[DIGEST]).toBeUndefined();
    expect(await warnings()).toEqual([
      'extensions/persons.yaml#1: Person "ada" was changed since svc wrote it, so this version\'s declaration of it ' +
        'was not applied; the changed object is kept',
      'Person "grace" is no longer declared by this version; a user changed it, so it is kept as theirs',
    ]);
    // A later start leaves the user's grace alone, and says nothing more of her.
    expect(await setEnabled(false)).toBe('STOPPED');
    expect(await setEnabled(true)).toBe('STARTED');
    expect((await get('grace')).spec.age).toBe(86);
    expect(await warnings()).toEqual([
      'extensions/persons.yaml#1: Person "ada" was changed since svc wrote it, so this version\'s declaration of it ' +
        'was not applied; the changed object is kept',
    ]);
  });

  it('leaves objects users made of its models alone: they are never declarations', async () => {
    expect((await t.request('POST', PERSONS, person('zoe', { age: 7 }))).status).toBe(201);
    expect(await setEnabled(false)).toBe('STOPPED');
    expect(await setEnabled(true)).toBe('STARTED');
    const zoe = await get('zoe');
    expect(zoe.spec.age).toBe(7);
    expect(zoe.metadata.annotations?.[DIGEST]).toBeUndefined();
    expect((await t.request('GET', PLUGIN)).body.status.phase).toBe('STARTED');
  });
});
