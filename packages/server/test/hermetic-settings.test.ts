/**
 * Tests pass whatever `SVC_*` variables the shell running them exports: a child process gets only the settings its test
 * gives it (`childEnv`), and an in-process server only those the harness passes to `loadConfig`, since nothing below
 * the entry points reads the process environment.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPO, startTestServer } from './harness.js';
import { childEnv } from './serve-process.js';

const SERVER_SRC = path.join(REPO, 'packages/server/src');

/** Where reading `process.env` belongs: the command line, which hands it on as the settings (or a command's input). */
const READS_ENVIRONMENT = /^(cli\.ts|cli\/)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !/\.(test|suite)\.ts$/.test(entry.name) ? [full] : [];
  });
}

afterEach(() => vi.unstubAllEnvs());

describe('hermetic settings', () => {
  it.each<[string, Record<string, string | undefined>, Record<string, string | undefined>]>([
    ['drops every SVC_ variable of the shell', {}, { SVC_PORT: undefined, SVC_ADMIN_PASSWORD: undefined }],
    ["keeps the shell's others", {}, { HERMETIC_OTHER: 'kept' }],
    ['sets what the test gives', { SVC_PORT: '0', SVC_DATA_DIR: '/d' }, { SVC_PORT: '0', SVC_DATA_DIR: '/d' }],
    ['removes what the test unsets', { HERMETIC_OTHER: undefined }, { HERMETIC_OTHER: undefined }],
  ])("a child's environment %s", (_name, overrides, expected) => {
    vi.stubEnv('SVC_PORT', '1');
    vi.stubEnv('SVC_ADMIN_PASSWORD', 'from the shell');
    vi.stubEnv('HERMETIC_OTHER', 'kept');
    const env = childEnv(overrides);
    for (const [name, value] of Object.entries(expected)) expect([name, env[name]]).toEqual([name, value]);
    expect(Object.keys(env).filter((name) => name.startsWith('VITEST'))).toEqual([]);
  });

  it('is read only by the command line, never by the server it composes', () => {
    // Authentication deletes the bootstrap password from the environment once used: a removal, not a read.
    const reads = (file: string) =>
      /process\.env\b/.test(readFileSync(file, 'utf8').replaceAll('delete process.env.SVC_ADMIN_PASSWORD;', ''));
    const readers = sourceFiles(SERVER_SRC)
      .filter(reads)
      .map((file) => path.relative(SERVER_SRC, file))
      .filter((file) => !READS_ENVIRONMENT.test(file));
    expect(readers).toEqual([]);
  });

  it('starts an in-process server on the settings the harness gives, whatever the shell exports', async () => {
    for (const [name, value] of Object.entries({
      SVC_ADMIN_PASSWORD: 'x',
      SVC_PORT: '1',
      SVC_DATA_DIR: '/nonexistent',
      SVC_LOG_LEVEL: 'debug',
      SVC_HTTPS_PORT: '1',
      SVC_DATABASE_URL: 'postgres://nowhere',
    })) {
      vi.stubEnv(name, value);
    }
    const t = await startTestServer({ pluginsDirs: [] });
    try {
      expect((await t.request('GET', '/api/v1alpha1/roles')).status).toBe(200);
      expect(t.server.store.shared).toBe(false);
    } finally {
      await t.close();
    }
  });
});
