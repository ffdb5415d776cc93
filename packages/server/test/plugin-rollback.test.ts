/**
 * Upgrades that roll back (docs/plugins.md "Upgrades and rollback"), over HTTP and the `svc` bin, on SQLite and
 * PostgreSQL: an upgrade whose new code fails to start puts the previous version back and running, status and
 * `svc plugin logs` tell which version runs and why the new one failed; a later good upgrade clears that.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLIP_ROUTE, flipArchive } from './flip-plugin.js';
import { BACKENDS, REPO, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart } from './plugin-archives.js';
import { childEnv } from './serve-process.js';

const BIN = path.join(REPO, 'packages/server/bin/svc.js');
const PLUGINS = '/apis/api.console.svc.run/v1alpha1/plugins';
const sha256 = (archive: Buffer) => createHash('sha256').update(archive).digest('hex');

describe.each(BACKENDS)('an upgrade that fails to start, on %s', (backend) => {
  let t: TestServer;
  let scratch: string;
  let v1Digest: string;

  /** The built bin, signed in to the test server with a config dir of its own. */
  const svc = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: childEnv({ XDG_CONFIG_HOME: path.join(scratch, 'home'), NO_COLOR: '1' }),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(`${TEST_ADMIN.password}\n`);
    });
  const upgrade = (archive: Buffer) => {
    const { body, headers } = multipart(archive);
    return t.request('POST', `${PLUGINS}/flip/upgrade`, body, headers);
  };
  const served = async () => (await t.request('GET', FLIP_ROUTE)).body?.version;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'svc-rollback-'));
    t = await startTestServer({ backend, pluginsDirs: [], pluginStartTimeoutMs: 3000 });
    const url = await t.server.listen();
    expect((await svc('login', url, '--username', 'admin', '--password-stdin')).code).toBe(0);
  });
  afterAll(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('installs and runs 1.0.0, whose route answers its version', async () => {
    const archive = await flipArchive(scratch, '1.0.0', 'serves');
    v1Digest = sha256(archive);
    const { body, headers } = multipart(archive);
    expect((await t.request('POST', `${PLUGINS}/install`, body, headers)).status).toBe(201);
    const enabled = await t.request('PUT', `${PLUGINS}/flip/plugin-state`, { enable: true });
    expect(enabled.body.status).toMatchObject({ phase: 'STARTED', version: '1.0.0', archiveDigest: v1Digest });
    expect(await served()).toBe('1.0.0');
  });

  it('rolls back an upgrade whose start() throws: 1.0.0 runs again, status names 2.0.0 and "boom"', async () => {
    const archive = await flipArchive(scratch, '2.0.0', 'start-throws');
    const response = await upgrade(archive);
    expect(response.status, response.text).toBe(200);
    expect(response.body.spec).toMatchObject({ version: '1.0.0', archiveDigest: v1Digest, enabled: true });
    expect(response.body.status).toMatchObject({
      phase: 'STARTED',
      version: '1.0.0',
      archiveDigest: v1Digest,
      lastUpgrade: {
        version: '2.0.0',
        archiveDigest: sha256(archive),
        reason: 'UpgradeRolledBack',
        message: 'boom',
        rolledBackTo: { version: '1.0.0', archiveDigest: v1Digest },
      },
    });
    expect(await served()).toBe('1.0.0');
    // What a reader of the object sees, not only the upgrade's answer.
    const stored = await t.request('GET', `/apis/plugin.svc.run/v1alpha1/plugins/flip`);
    expect(stored.body.status.lastUpgrade.message).toBe('boom');

    const logs = await svc('plugin', 'logs', 'flip');
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('ERROR plugin failed to start: boom\n');
    expect(logs.stdout).toContain('WARN  the upgrade to 2.0.0 failed to start (boom); rolled back to 1.0.0\n');
    expect(logs.stdout).toMatch(
      /the upgrade to 2\.0\.0 failed to start \(boom\); rolled back to 1\.0\.0\nversion: 1\.0\.0\nphase: STARTED\n$/,
    );
  });

  it('rolls back an upgrade whose entry fails to import, and `svc plugin upgrade` says so (exit 1)', async () => {
    const file = path.join(scratch, 'flip-2.0.1.tgz');
    await writeFile(file, await flipArchive(scratch, '2.0.1', 'import-fails'));
    const run = await svc('plugin', 'upgrade', 'flip', file);
    expect([run.code, run.stdout]).toEqual([
      1,
      'plugin/flip: the upgrade to 2.0.1 failed to start (the entry cannot load); rolled back to 1.0.0 (STARTED)\n',
    ]);
    expect(await served()).toBe('1.0.0');
  });

  it('rolls back an upgrade whose declared object is refused', async () => {
    const response = await upgrade(await flipArchive(scratch, '2.0.2', 'declares-refused'));
    expect(response.body.spec.version).toBe('1.0.0');
    expect(response.body.status).toMatchObject({
      phase: 'STARTED',
      version: '1.0.0',
      lastUpgrade: { version: '2.0.2' },
    });
    expect(response.body.status.lastUpgrade.message).toContain('nowhere.svc.run/v1');
    expect(await served()).toBe('1.0.0');
  });

  it('rolls back the same failing archive sent again, once more, and stays on 1.0.0', async () => {
    const archive = await flipArchive(scratch, '2.0.0', 'start-throws');
    const first = await upgrade(archive);
    const again = await upgrade(archive);
    expect(again.body.spec.version).toBe('1.0.0');
    expect(again.body.status.lastUpgrade).toMatchObject({ version: '2.0.0', message: 'boom' });
    expect(again.body.status.lastUpgrade.at > first.body.status.lastUpgrade.at).toBe(true);
    // Spec names the code that runs: nothing is left for the reconciler to try again.
    const stored = await t.request('GET', `/apis/plugin.svc.run/v1alpha1/plugins/flip`);
    expect(stored.body.spec.archiveDigest).toBe(v1Digest);
    expect(await served()).toBe('1.0.0');
  });

  it('upgrades to a good 3.0.0, which clears the failure', async () => {
    const file = path.join(scratch, 'flip-3.0.0.tgz');
    const archive = await flipArchive(scratch, '3.0.0', 'serves');
    await writeFile(file, archive);
    const run = await svc('plugin', 'upgrade', 'flip', file);
    expect([run.code, run.stdout]).toEqual([0, 'plugin/flip 3.0.0 upgraded (STARTED)\n']);
    const stored = await t.request('GET', `/apis/plugin.svc.run/v1alpha1/plugins/flip`);
    expect(stored.body.spec).toMatchObject({ version: '3.0.0', archiveDigest: sha256(archive) });
    expect(stored.body.status).toMatchObject({ phase: 'STARTED', version: '3.0.0' });
    expect(stored.body.status.lastUpgrade).toBeUndefined();
    expect(await served()).toBe('3.0.0');
    const logs = await svc('plugin', 'logs', 'flip');
    expect(logs.stdout).not.toContain('rolled back');
    expect(logs.stdout).toMatch(/version: 3\.0\.0\nphase: STARTED\n$/);
  });

  it('leaves a first install whose start fails FAILED: there is nothing to roll back to', async () => {
    expect((await t.request('DELETE', '/apis/plugin.svc.run/v1alpha1/plugins/flip')).status).toBeLessThan(300);
    await t.request('GET', `${PLUGINS}/flip`);
    const { body, headers } = multipart(await flipArchive(scratch, '4.0.0', 'start-throws'));
    let installed = await t.request('POST', `${PLUGINS}/install`, body, headers);
    // The uninstall finalizer may still be at work: the name is free once the object is gone.
    for (let i = 0; installed.status === 409 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      installed = await t.request('POST', `${PLUGINS}/install`, body, headers);
    }
    expect(installed.status, installed.text).toBe(201);
    const enabled = await t.request('PUT', `${PLUGINS}/flip/plugin-state`, { enable: true });
    expect(enabled.body.spec.version).toBe('4.0.0');
    expect(enabled.body.status).toMatchObject({ phase: 'FAILED', version: '4.0.0' });
    expect(enabled.body.status.conditions[0].message).toBe('boom');
    expect(enabled.body.status.lastUpgrade).toBeUndefined();
    expect((await t.request('GET', FLIP_ROUTE)).status).toBe(404);
  });
});
