import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SettingError, settingsFromArgs } from './config.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-config-'));
  file = path.join(dir, 'svc.yaml');
  await writeFile(file, 'port: 7000\nhost: 0.0.0.0\ndataDir: data\npluginsDir: [a, /b]\nsessionIdleTimeout: 30m\n');
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('loading the settings', () => {
  it('gives every setting its default', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 8090,
      httpsPort: 8443,
      dataDir: path.resolve('data'),
      pluginsDirs: [],
      tlsHosts: [],
      watchHistory: 100_000,
      maxWatchesPerUser: 100,
      sessionIdleTimeoutMs: 3_600_000,
      sessionMaxAgeMs: 86_400_000,
      basicAuth: false,
      controllers: true,
      trustProxy: false,
      logLevel: 'info',
    });
    const config = loadConfig({});
    for (const unset of ['configFile', 'databaseUrl', 'databaseSchema', 'allowedHosts', 'adminPassword', 'logFormat']) {
      expect(config[unset as keyof typeof config], unset).toBeUndefined();
    }
  });

  it('counts an empty value as none', () => {
    expect(loadConfig({ SVC_PORT: '', SVC_WATCH_HISTORY: ' ', SVC_DATABASE_URL: '' })).toMatchObject({
      port: 8090,
      watchHistory: 100_000,
      databaseUrl: undefined,
    });
  });

  it('reads the config file, its relative paths from its folder', () => {
    expect(loadConfig({ SVC_CONFIG: file })).toMatchObject({
      configFile: file,
      port: 7000,
      host: '0.0.0.0',
      dataDir: path.join(dir, 'data'),
      pluginsDirs: [path.join(dir, 'a'), '/b'],
      sessionIdleTimeoutMs: 1_800_000,
    });
  });

  it.each([
    ['the file alone', [], {}, 7000],
    ['a variable over the file', [], { SVC_PORT: '7001' }, 7001],
    ['a flag over the variable and the file', ['--port', '7002'], { SVC_PORT: '7001' }, 7002],
    ['an empty variable: the default, not the file', [], { SVC_PORT: '' }, 8090],
  ])('takes %s', (_, args, env, port) => {
    const settings = settingsFromArgs(['--config', file, ...args], env as Record<string, string>);
    expect(loadConfig(settings).port).toBe(port);
  });

  it("puts a fallback beneath the file and above the default: npm start's plugins folder", () => {
    const fallback = { pluginsDir: '/repo/plugins' };
    expect(loadConfig({}, { fallback }).pluginsDirs).toEqual(['/repo/plugins']);
    expect(loadConfig({ SVC_CONFIG: file }, { fallback }).pluginsDirs).toEqual([path.join(dir, 'a'), '/b']);
    expect(loadConfig({ SVC_PLUGINS_DIR: '' }, { fallback }).pluginsDirs).toEqual([]);
  });

  it('names where a bad value was given: the variable, or the file and its key', async () => {
    expect(() => loadConfig({ SVC_PORT: 'http' })).toThrow(
      new SettingError('SVC_PORT must be a port number (0 picks a free one), got "http"'),
    );
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'port: http\n');
    expect(() => loadConfig({ SVC_CONFIG: bad })).toThrow(
      `${bad}: port must be a port number (0 picks a free one), got "http"`,
    );
    // A good variable covers the file's bad value: it is never read.
    expect(loadConfig({ SVC_CONFIG: bad, SVC_PORT: '1' }).port).toBe(1);
  });

  it('takes every flag of the table, and --config', () => {
    const settings = settingsFromArgs(['--sqlite-sync=full', '--basic-auth', 'on', '--config', 'x.yaml'], {});
    expect(settings).toEqual({ SVC_SQLITE_SYNC: 'full', SVC_BASIC_AUTH: 'on', SVC_CONFIG: 'x.yaml' });
    expect(() => settingsFromArgs(['--admin-password', 'x'], {})).toThrow(/^unknown flag "--admin-password"/);
    expect(() => settingsFromArgs(['--conifg', 'x'], {})).toThrow('unknown flag "--conifg"; did you mean "--config"?');
  });
});
