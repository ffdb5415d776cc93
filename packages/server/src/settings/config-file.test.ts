import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigFile, readConfigFile } from './config-file.js';
import { SETTINGS } from './table.js';

const read = (text: string) => parseConfigFile(text, 'svc.yaml', SETTINGS).values;

describe('the config file', () => {
  it.each([
    ['', {}],
    ['# nothing set yet\n', {}],
    ['port: 9000', { port: '9000' }],
    ['port: "9000"', { port: '9000' }],
    ['controllers: false', { controllers: 'false' }],
    ['controllers: off', { controllers: 'off' }],
    ['watchHistory: 1e5', { watchHistory: '100000' }],
    ['allowedHosts: [a.example, "10.0.0.1"]', { allowedHosts: 'a.example,10.0.0.1' }],
    ['allowedHosts: a.example,b.example', { allowedHosts: 'a.example,b.example' }],
    ['pluginsDir:\n  - one\n  - /two', { pluginsDir: 'one:/two' }],
    ['trustProxy: [10.0.0.0/8, 2]', { trustProxy: '10.0.0.0/8,2' }],
  ])('reads %j', (text, values) => {
    expect(read(text)).toEqual(values);
  });

  it.each([
    ['prot: 9000', 'svc.yaml: unknown key "prot"; did you mean "port"?'],
    ['data-dir: x', 'svc.yaml: unknown key "data-dir"; did you mean "dataDir"?'],
    ['SVC_DATA_DIR: x', 'svc.yaml: unknown key "SVC_DATA_DIR"; did you mean "dataDir"?'],
    ['colourScheme: dark', /^svc\.yaml: unknown key "colourScheme"$/],
    // The file cannot name another file, nor hold the administrator's password.
    ['config: other.yaml', /^svc\.yaml: unknown key "config"/],
    ['adminPassword: secret-secret', /^svc\.yaml: unknown key "adminPassword"/],
    ['port: [1, 2]', 'svc.yaml: port must be a single value, got a list'],
    ['port:', 'svc.yaml: port must be a single value, got no value'],
    ['host: {name: x}', 'svc.yaml: host must be a single value, got a mapping'],
    ['allowedHosts: {a: b}', 'svc.yaml: allowedHosts must be a value or a list of values, got a mapping'],
    ['allowedHosts: [[a]]', 'svc.yaml: allowedHosts must be a list of plain values, got a list in it'],
    ['pluginsDir: [a, "b:c"]', 'svc.yaml: pluginsDir must be a list of values without ":", got "b:c"'],
    ['- port: 1', 'svc.yaml must be a mapping of settings (key: value), such as "port: 8090"'],
    ['just words', 'svc.yaml must be a mapping of settings'],
    ['port: 1\nport: 2', /^svc\.yaml: Map keys must be unique/],
    ['port: [1', /^svc\.yaml: /],
    ['port: 1\n---\nport: 2', /^svc\.yaml: Source contains multiple documents/],
  ])('refuses %j, naming the file and the key', (text, message) => {
    expect(() => read(text)).toThrow(message);
  });

  it('is read from its path, relative paths starting at its folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-config-file-'));
    try {
      await writeFile(path.join(dir, 'svc.yaml'), 'dataDir: data\n');
      const file = readConfigFile(path.join(dir, 'svc.yaml'), SETTINGS);
      expect(file).toMatchObject({ dir, values: { dataDir: 'data' } });
      expect(() => readConfigFile(path.join(dir, 'missing.yaml'), SETTINGS)).toThrow(
        /^cannot read the config file: ENOENT/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
