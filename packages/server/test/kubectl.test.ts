import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { eventually } from './eventually.js';
import { BACKENDS, PERSONS, peopleSettled, person } from './harness.js';
import { type KubectlServer, startKubectlServer } from './kubectl-harness.js';

const personYaml = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) =>
  `apiVersion: people.svc.run/v1alpha1
kind: Person
metadata:
  name: ${name}
  labels: ${JSON.stringify(labels)}
spec: ${JSON.stringify(spec)}
`;

/** The real kubectl against svc over HTTPS, with the kubeconfig `svc kubeconfig` writes (issue 15, "Done means"). */
describe.each(BACKENDS)('kubectl (%s)', (backend) => {
  let k: KubectlServer;
  beforeAll(async () => {
    k = await startKubectlServer(backend);
    await peopleSettled(k.t);
  }, 120_000);
  afterAll(() => k?.close());

  const names = async (query = '') =>
    ((await k.t.request('GET', `${PERSONS}${query}`)).body.items as Array<{ metadata: { name: string } }>)
      .map((p) => p.metadata.name)
      .sort();

  it('lists the served resources, core and plugin models alike', async () => {
    const out = await k.kubectl(['api-resources', '--no-headers']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const rows = out.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    const byName = new Map(rows.map((r) => [r[0], r]));
    expect(byName.get('persons')).toEqual(['persons', 'ps', 'people.svc.run/v1alpha1', 'false', 'Person']);
    expect(byName.get('users')?.slice(-3)).toEqual(['v1alpha1', 'false', 'User']);
    expect(byName.get('roles')?.slice(-3)).toEqual(['v1alpha1', 'false', 'Role']);
  });

  it('gets a table and YAML', async () => {
    const table = await k.kubectl(['get', 'persons']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header).toMatch(/^NAME\s/);
    expect(rows.map((r) => r.split(/\s+/)[0]).sort()).toEqual(['ada', 'alan', 'grace']);
    const yaml = await k.kubectl(['get', 'person', 'ada', '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toMatchObject({
      apiVersion: 'people.svc.run/v1alpha1',
      kind: 'Person',
      metadata: { name: 'ada' },
      spec: { name: 'Ada Lovelace', age: 36 },
    });
  });

  it('applies: created, configured, unchanged; --dry-run=server writes nothing', async () => {
    const file = await k.file('kay.yaml', personYaml('kay', { name: 'Kay', age: 30 }));
    const dry = await k.kubectl(['apply', '--dry-run=server', '-f', file]);
    expect(dry.stderr).toBe('');
    expect(dry.stdout.trim()).toBe('person.people.svc.run/kay created (server dry run)');
    expect(await names()).not.toContain('kay');
    expect((await k.kubectl(['apply', '-f', file])).stdout.trim()).toBe('person.people.svc.run/kay created');
    expect((await k.kubectl(['apply', '-f', file])).stdout.trim()).toBe('person.people.svc.run/kay unchanged');
    const older = await k.file('kay.yaml', personYaml('kay', { name: 'Kay', age: 31 }));
    expect((await k.kubectl(['apply', '-f', older])).stdout.trim()).toBe('person.people.svc.run/kay configured');
    expect((await k.t.request('GET', `${PERSONS}/kay`)).body.spec.age).toBe(31);
  });

  it('applies on the server side: create, then update under the same field manager', async () => {
    const file = await k.file('sid.yaml', personYaml('sid', { name: 'Sid', age: 40 }));
    const created = await k.kubectl(['apply', '--server-side', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('person.people.svc.run/sid serverside-applied');
    const changed = await k.file('sid.yaml', personYaml('sid', { name: 'Sid', age: 41 }));
    expect((await k.kubectl(['apply', '--server-side', '-f', changed])).code).toBe(0);
    const stored = (await k.t.request('GET', `${PERSONS}/sid`)).body;
    expect(stored.spec.age).toBe(41);
    expect(stored.metadata.managedFields?.[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply' });
  });

  it('replaces from a file, using the resourceVersion it read as the lock', async () => {
    await k.kubectl(['apply', '-f', await k.file('rex.yaml', personYaml('rex', { name: 'Rex', age: 5 }))]);
    await peopleSettled(k.t);
    const current = parse((await k.kubectl(['get', 'person', 'rex', '-o', 'yaml'])).stdout);
    current.spec.age = 6;
    const file = await k.file('rex-replace.yaml', JSON.stringify(current));
    const replaced = await k.kubectl(['replace', '-f', file]);
    expect(replaced.stderr).toBe('');
    expect(replaced.stdout.trim()).toBe('person.people.svc.run/rex replaced');
    // The same file again holds a stale resourceVersion: a conflict, with svc's message.
    const stale = await k.kubectl(['replace', '-f', file]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^Error from server \(Conflict\): .*rex/m);
  });

  it('patches: strategic (the default, as a merge), merge and JSON patch', async () => {
    expect((await k.t.request('POST', PERSONS, person('pat', { age: 20 }))).status).toBe(201);
    const strategic = await k.kubectl(['patch', 'person', 'pat', '-p', '{"spec":{"age":21}}']);
    expect(strategic.stdout.trim()).toBe('person.people.svc.run/pat patched');
    const merge = await k.kubectl(['patch', 'person', 'pat', '--type', 'merge', '-p', '{"spec":{"age":22}}']);
    expect(merge.stdout.trim()).toBe('person.people.svc.run/pat patched');
    const json = await k.kubectl([
      'patch',
      'person',
      'pat',
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/spec/age","value":23}]',
    ]);
    expect(json.stdout.trim()).toBe('person.people.svc.run/pat patched');
    expect((await k.t.request('GET', `${PERSONS}/pat`)).body.spec.age).toBe(23);
  });

  it('labels with --resource-version: the current one applies, a stale one is a conflict', async () => {
    expect((await k.t.request('POST', PERSONS, person('lab'))).status).toBe(201);
    await peopleSettled(k.t);
    const current = (await k.t.request('GET', `${PERSONS}/lab`)).body.metadata.resourceVersion as string;
    const ok = await k.kubectl(['label', 'person', 'lab', 'tier=gold', `--resource-version=${current}`]);
    expect(ok.stdout.trim()).toBe('person.people.svc.run/lab labeled');
    const stale = await k.kubectl([
      'label',
      'person',
      'lab',
      'tier=silver',
      '--overwrite',
      `--resource-version=${current}`,
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr.trim()).toMatch(
      new RegExp(
        `^Error from server \\(Conflict\\): Person "lab" is at metadata.resourceVersion \\d+, the request carries "${current}"; get the object again and retry$`,
      ),
    );
    expect((await k.t.request('GET', `${PERSONS}/lab`)).body.metadata.labels.tier).toBe('gold');
  });

  it("shows svc's own message for a validation error and a not-found", async () => {
    const file = await k.file('old.yaml', personYaml('old', { name: 'Old', age: 200 }));
    const invalid = await k.kubectl(['create', '-f', file]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('spec.age');
    expect(invalid.stderr).toContain('must be <= 150');
    expect(invalid.stderr).not.toContain('unknown reason');
    const missing = await k.kubectl(['get', 'person', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      'Error from server (NotFound): Person "nobody" not found in people.svc.run/v1alpha1',
    );
  });

  it('deletes, and waits for finalizers', async () => {
    expect((await k.t.request('POST', PERSONS, person('gone'))).status).toBe(201);
    await peopleSettled(k.t);
    const out = await k.kubectl(['delete', 'person', 'gone']);
    expect(out.stderr).toBe('');
    expect(out.stdout.trim()).toBe('person.people.svc.run "gone" deleted');
    expect(await names()).not.toContain('gone');
  });

  it('watches with get -w', async () => {
    const watch = k.spawnKubectl(['get', 'persons', '-w', '--no-headers']);
    try {
      await eventually(() => watch.lines.some((l) => l.startsWith('ada ')), 'the initial list');
      expect((await k.t.request('POST', PERSONS, person('watched'))).status).toBe(201);
      await eventually(() => watch.lines.some((l) => l.startsWith('watched ')), 'the new person');
    } finally {
      watch.stop();
    }
  });

  it('explains a model from its OpenAPI schema', async () => {
    const out = await k.kubectl(['explain', 'persons.spec']);
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('KIND:       Person');
    expect(out.stdout).toMatch(/age\s+<integer>/);
    // The descriptions of the model's schema (plugins/people/src/person.ts), field by field.
    expect(out.stdout).toMatch(/DESCRIPTION:\s+Desired state: who the person is\./);
    expect(out.stdout).toMatch(/age\s+<integer>\s+Age in years; the status’s age group follows it\./);
    expect(out.stdout).toMatch(/name\s+<string>\s+The person’s full name; unique among persons\./);
    const status = await k.kubectl(['explain', 'persons.status.ageGroup']);
    expect(status.stdout).toMatch(/The age group spec\.age falls in \(unknown without an age\)\./);
    expect(status.stdout).toMatch(/ENUM:\s+unknown\s+child/);
  });
});
