/**
 * The `svc` commands that talk to a running server, end to end: the built bin spawned with its own config dir
 * against a real listening svc (HTTP): login, get, apply, delete, token create, plugin management, the messages of
 * failures, usage errors with suggestions, and --help that contacts nothing. `npm test` builds first.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { eventually } from './eventually.js';
import { REPO, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { tgzOf } from './plugin-archives.js';
import { childEnv } from './serve-process.js';
import { NOTES_PLUGINS } from './watch-client.js';

const BIN = path.join(REPO, 'packages/server/bin/svc.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the bin with a config dir of its own; nothing of the caller's environment names a server or token. */
function svcWith(configHome: string, args: string[], input?: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: childEnv({ XDG_CONFIG_HOME: configHome, NO_COLOR: '1', ...env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

const PERSON = (name: string, age: number) => `apiVersion: people.svc.run/v1alpha1
kind: Person
metadata:
  name: ${name}
spec:
  name: Person ${name}
  age: ${age}
  gender: FEMALE
`;

describe('the svc command line against a server', () => {
  let t: TestServer;
  let url: string;
  let home: string;
  const svc = (...args: string[]) => svcWith(home, args);
  beforeAll(async () => {
    t = await startTestServer({ backend: 'sqlite' });
    url = await t.server.listen();
    home = await mkdtemp(path.join(tmpdir(), 'svc-cli-home-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('signs in with a password on standard input and stores a token only its owner can read', async () => {
    const wrong = await svcWith(home, ['login', url, '--password-stdin'], 'not-the-password\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid username or password');

    const login = await svcWith(
      home,
      ['login', url, '--username', 'admin', '--password-stdin'],
      `${TEST_ADMIN.password}\n`,
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const file = path.join(home, 'svc/config.json');
    expect(login.stdout).toBe(`Signed in to ${new URL(url).origin} as admin; the token is stored in ${file}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored).toMatchObject({ server: new URL(url).origin, token: expect.stringMatching(/^pat_/) });
  });

  it('gets a table, YAML and JSON, with selectors', async () => {
    const table = await svc('get', 'persons');
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+FULL NAME\s+YEARS\s+GENDER\s+AGE$/);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(/\s+/)[0])
        .sort(),
    ).toEqual(['ada', 'alan', 'grace']);

    const yaml = await svc('get', 'person', 'ada', '-o', 'yaml');
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toMatchObject({ kind: 'Person', metadata: { name: 'ada' } });
    const json = await svc('get', 'Person', '-o', 'json', '-l', 'people.svc.run/team=engines');
    expect(JSON.parse(json.stdout).items.map((p: any) => p.metadata.name)).toEqual(['ada']);
    const limited = await svc('get', 'persons', '--sort', 'spec.age,asc', '--limit', '1', '-o', 'json');
    expect(JSON.parse(limited.stdout).items).toHaveLength(1);
  });

  it('applies objects: created, configured, unchanged; and shows a validation error readably', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-apply-'));
    const file = path.join(dir, 'persons.yaml');
    await writeFile(file, `${PERSON('cli-a', 30)}---\n${PERSON('cli-b', 40)}`);
    const created = await svc('apply', '-f', file);
    expect([created.code, created.stdout]).toEqual([0, 'person/cli-a created\nperson/cli-b created\n']);
    const same = await svc('apply', '-f', file);
    expect(same.stdout).toBe('person/cli-a unchanged\nperson/cli-b unchanged\n');
    await writeFile(file, `${PERSON('cli-a', 31)}---\n${PERSON('cli-b', 40)}`);
    const changed = await svc('apply', '-f', file);
    expect(changed.stdout).toBe('person/cli-a configured\nperson/cli-b unchanged\n');
    expect((await t.request('GET', '/apis/people.svc.run/v1alpha1/persons/cli-a')).body.spec.age).toBe(31);

    // From standard input, and what `svc get -o yaml` printed can be applied back.
    const fromStdin = await svcWith(home, ['apply', '-f', '-'], (await svc('get', 'persons', '-o', 'yaml')).stdout);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toContain('person/cli-a unchanged');

    await writeFile(file, PERSON('cli-bad', 200));
    const invalid = await svc('apply', '-f', file);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('svc apply: person/cli-bad: ');
    expect(invalid.stderr).toContain('\n  /spec/age: must be <= 150\n');
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes objects, and says which one was not found', async () => {
    await svcWith(home, ['apply', '-f', '-'], PERSON('cli-gone', 20));
    const deleted = await svc('delete', 'person', 'cli-gone', 'no-such-person');
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toBe('person/cli-gone deleted\n');
    expect(deleted.stderr).toMatch(/person\/no-such-person: .*not found.*\(404 Not Found\)/);
    const fromFile = await svcWith(home, ['delete', '-f', '-'], PERSON('cli-b', 40));
    expect([fromFile.code, fromFile.stdout]).toEqual([0, 'person/cli-b deleted\n']);
  });

  it('creates a token whose secret works with --server and --token', async () => {
    const created = await svc('token', 'create', '--name', 'from-cli', '--expires', '1d');
    expect(created.code).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^pat_/);
    expect(created.stderr).toMatch(/^Token "from-cli" \(\S+\) created, expiring \S+; it is shown once:/);
    const listed = await svc('token', 'list');
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'ID', 'ROLES', 'EXPIRES', 'REVOKED']);
    const row = rows.find((r) => r.startsWith('from-cli '))!.split(/\s+/);
    expect([row[2], row[4]]).toEqual(['super-role', 'no']);
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'svc-cli-other-'));
    const got = await svcWith(elsewhere, ['get', 'persons', '--server', url, '--token', secret]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('ada');
    const viaEnv = await svcWith(elsewhere, ['get', 'persons', '-o', 'json'], '', {
      SVC_SERVER: url,
      SVC_TOKEN: secret,
    });
    expect(viaEnv.code).toBe(0);
    const anonymous = await svcWith(elsewhere, ['get', 'persons', '--server', url]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('(401 Unauthorized)');
    await rm(elsewhere, { recursive: true, force: true });
  });

  it('installs, enables, shows the logs of, disables and uninstalls a plugin', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-'));
    const archive = path.join(dir, 'notes.tgz');
    await writeFile(archive, await tgzOf(path.join(NOTES_PLUGINS, 'notes')));
    const installed = await svc('plugin', 'install', archive);
    expect([installed.code, installed.stdout]).toEqual([0, 'plugin/notes 1.0.0 installed (RESOLVED)\n']);
    const enabled = await svc('plugin', 'enable', 'notes');
    expect([enabled.code, enabled.stdout]).toEqual([0, 'plugin/notes 1.0.0 enabled (STARTED)\n']);
    expect((await svc('get', 'notes')).code).toBe(0);
    const logs = await svc('plugin', 'logs', 'notes');
    expect(logs.stdout).toMatch(/phase: STARTED\n$/);
    const disabled = await svc('plugin', 'disable', 'notes');
    expect(disabled.stdout).toBe('plugin/notes 1.0.0 disabled (STOPPED)\n');
    const note = { apiVersion: 'notes.svc.run/v1', kind: 'Note', metadata: { name: 'kept' }, spec: { text: 'Kept' } };
    expect(
      (await t.request('PUT', '/apis/api.console.svc.run/v1alpha1/plugins/notes/plugin-state', { enable: true }))
        .status,
    ).toBe(200);
    expect((await t.request('POST', '/apis/notes.svc.run/v1/notes', note)).status).toBe(201);
    // The data stays by default; --data delete deletes it; anything else is a usage error that uninstalls nothing.
    expect(await svc('plugin', 'uninstall', 'notes')).toMatchObject({
      code: 0,
      stdout: 'plugin/notes uninstalled, its data kept\n',
    });
    expect(await t.server.store.count('notes.svc.run/notes')).toBe(1);
    expect((await svc('plugin', 'install', archive)).code).toBe(0);
    const wrong = await svc('plugin', 'uninstall', 'notes', '--data', 'purge');
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      expect.stringContaining('--data takes keep or delete, not "purge"'),
    ]);
    expect((await svc('plugin', 'enable', 'notes', '--data', 'delete')).code).toBe(2);
    expect((await svc('plugin', 'enable', 'notes')).stdout).toBe('plugin/notes 1.0.0 enabled (STARTED)\n');
    expect(await svc('plugin', 'uninstall', 'notes', '--data', 'delete')).toMatchObject({
      code: 0,
      stdout: 'plugin/notes uninstalled, its data deleted\n',
    });
    expect(await t.server.store.count('notes.svc.run/notes')).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('watches: the current objects, then each change, until interrupted', async () => {
    const child = spawn(process.execPath, [BIN, 'watch', 'persons', '-l', 'example.com/watched=yes'], {
      env: childEnv({ XDG_CONFIG_HOME: home }),
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await svcWith(
      home,
      ['apply', '-f', '-'],
      PERSON('cli-watched', 50).replace('metadata:\n', 'metadata:\n  labels: {example.com/watched: "yes"}\n'),
    );
    await eventually(() => stdout.includes('ADDED     person/cli-watched'), 'the ADDED line');
    await svcWith(home, ['delete', 'person', 'cli-watched']);
    await eventually(() => /DELETED\s+person\/cli-watched/.test(stdout), 'the DELETED line');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('signs out: the token is deleted on the server and forgotten here', async () => {
    const token = JSON.parse(await readFile(path.join(home, 'svc/config.json'), 'utf8')).token;
    const out = await svc('logout');
    expect([out.code, out.stdout]).toEqual([0, `Signed out of ${new URL(url).origin}\n`]);
    await expect(stat(path.join(home, 'svc/config.json'))).rejects.toThrow();
    const refused = await t.request('GET', '/apis/people.svc.run/v1alpha1/persons', undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(refused.status).toBe(401);
    const after = await svc('get', 'persons');
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('run `svc login <url>` first');
  });
});

describe('the svc command line, offline', () => {
  let home: string;
  let listener: net.Server;
  let connections = 0;
  let server: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'svc-cli-help-'));
    // A server that counts whoever connects: --help must contact nothing.
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    server = `http://127.0.0.1:${(listener.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve));
    await rm(home, { recursive: true, force: true });
  });
  const svc = (...args: string[]) => svcWith(home, args, '', { SVC_SERVER: server, SVC_TOKEN: 'pat_x' });

  it.each([
    [['login', 'http://127.0.0.1:1', '--help'], 'usage: svc login <url>'],
    [['logout', '-h'], 'usage: svc logout'],
    [['get', 'persons', '--help'], 'usage: svc get <resource>'],
    [['apply', '-f', 'x.yaml', '--help'], 'usage: svc apply -f'],
    [['delete', 'person', 'ada', '--help'], 'usage: svc delete'],
    [['watch', 'persons', '--help'], 'usage: svc watch'],
    [['token', 'create', '--help'], 'usage: svc token create'],
    [['plugin', 'install', 'x.tgz', '--help'], 'usage: svc plugin install'],
    [['plugin', 'enable', 'x', '-h'], 'svc plugin enable|disable'],
  ])('svc %j prints its usage and contacts nothing', async (args, usage) => {
    const run = await svc(...args);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(usage);
    expect(connections).toBe(0);
  });

  it.each([
    [['gett', 'persons'], 'unknown command "gett"; did you mean "get"?'],
    [['get', 'persons', '--field-selecter', 'x'], 'unknown flag "--field-selecter"; did you mean "--field-selector"?'],
    [['apply', '--filenme', 'x'], 'unknown flag "--filenme"; did you mean "--filename"?'],
    [['plugin', 'instal', 'x'], 'unknown plugin command "instal"; did you mean "install"?'],
    [['token', 'craete'], 'unknown token command "craete"'],
    [['token'], 'which command? create or list'],
    [['get', 'persons', '-o', 'yml'], '-o takes table, yaml, json; got "yml"; did you mean "yaml"?'],
    [['get'], 'which resource?'],
  ])('svc %j is a usage error (exit 2) that helps', async (args, message) => {
    const run = await svc(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(connections).toBe(0);
  });
});

describe('the svc command line over HTTPS', () => {
  let t: TestServer;
  let home: string;
  beforeAll(async () => {
    t = await startTestServer({ env: { SVC_HTTPS_PORT: '0' } });
    await t.server.listen();
    home = await mkdtemp(path.join(tmpdir(), 'svc-cli-tls-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('signs in trusting the given CA, keeps it with the token, and uses both', async () => {
    const https = t.server.httpsUrl!;
    const untrusted = await svcWith(home, ['login', https, '--password-stdin'], TEST_ADMIN.password);
    expect(untrusted.code).toBe(1);
    const login = await svcWith(
      home,
      ['login', https, '--password-stdin', '--certificate-authority', t.server.caFile!],
      TEST_ADMIN.password,
    );
    expect([login.code, login.stderr]).toEqual([0, '']);
    expect(JSON.parse(await readFile(path.join(home, 'svc/config.json'), 'utf8')).ca).toContain('BEGIN CERTIFICATE');
    const got = await svcWith(home, ['get', 'persons', '-o', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).items).toHaveLength(3);
  });
});
