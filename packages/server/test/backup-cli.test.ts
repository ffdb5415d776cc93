import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig, settingsFromArgs } from '../src/config.js';
import { createServer } from '../src/main.js';
import { CONSOLE } from './auth-harness.js';
import { PG_URL, pluginReport, startTestServer } from './harness.js';
import { svc } from './offline-cli.js';
import { multipart, tgzOf } from './plugin-archives.js';

// A plugin with a model and nothing else, installed from an archive: its code lives under <data dir>/plugins.
const NOTES_PLUGIN = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-watch/notes');
const NOTES = '/apis/notes.svc.run/v1/notes';

/** The command line of `svc export` and `svc import`, and a move from PostgreSQL to SQLite with a plugin's code. */
describe('svc export and svc import', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'svc-backup-cli-'));
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  it('answers --help without opening anything', async () => {
    const nowhere = path.join(tmp, 'nowhere');
    for (const command of ['export', 'import']) {
      const help = await svc([command, '--data-dir', nowhere, '-h']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: svc ${command} \\[--data-dir D`));
    }
    expect(existsSync(nowhere)).toBe(false);
  });

  it('refuses unknown flags with a suggestion, and a missing -f (exit 2)', async () => {
    const flag = await svc(['export', '--ouptut', 'x.yaml']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^svc export: unknown flag "--ouptut"; did you mean "--output"\?\nusage: svc export/);
    const negative = await svc(['export', '--no-secret']);
    expect(negative.stderr).toContain('did you mean "--no-secrets"?');
    const noFile = await svc(['import', '--data-dir', path.join(tmp, 'x')]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('-f FILE (or -f - for standard input) is required');
  });

  it('refuses a data directory without a database, and a file that is not a backup, creating nothing (exit 1)', async () => {
    const missing = path.join(tmp, 'missing');
    const exported = await svc(['export', '--data-dir', missing]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(`no svc database at ${path.join(missing, 'svc.db')}`);
    expect(existsSync(missing)).toBe(false);
    const noSchema = await svc(['export'], {
      env: { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: 'no_such_schema' },
    });
    expect(noSchema.code).toBe(1);
    expect(noSchema.stderr).toContain('no svc store in schema no_such_schema of this database');
    const notBackup = path.join(tmp, 'list.yaml');
    await writeFile(notBackup, 'apiVersion: v1\nkind: List\nitems: []\n');
    const imported = await svc(['import', '--data-dir', missing, '-f', notBackup]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('not an svc backup: the first document must be apiVersion backup.svc.run/v1');
    const broken = path.join(tmp, 'broken.yaml');
    await writeFile(broken, '---\napiVersion: backup.svc.run/v1\nkind: Backup\nresources: []\n---\nkind: [unclosed\n');
    const syntax = await svc(['import', '--data-dir', missing, '-f', broken, '--unverified']);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain(`svc import: ${broken} is refused, and nothing was written: document 2: `);
    expect(existsSync(missing)).toBe(false);
  });

  it("moves a PostgreSQL store and an installed plugin's code to SQLite through a pipe, without secrets", async () => {
    const schema = `t_export_${Math.random().toString(36).slice(2, 8)}`;
    const sourceDir = path.join(tmp, 'pg-data');
    const source = await startTestServer({
      backend: 'postgres',
      schema,
      pluginsDirs: [],
      env: { SVC_DATA_DIR: sourceDir },
    });
    try {
      const { body, headers } = multipart(await tgzOf(NOTES_PLUGIN));
      expect((await source.request('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
      const enabled = await source.request('PUT', `${CONSOLE}/plugins/notes/plugin-state`, { enable: true });
      expect(enabled.status, enabled.text).toBe(200);
      const note = {
        apiVersion: 'notes.svc.run/v1',
        kind: 'Note',
        metadata: { name: 'first', labels: { a: 'b' } },
        spec: {},
      };
      const created = await source.request('POST', NOTES, note);
      expect(created.status, created.text).toBe(201);

      const exported = await svc(['export', '--data-dir', sourceDir, '--no-secrets'], {
        env: { SVC_DATABASE_URL: PG_URL, SVC_DATABASE_SCHEMA: schema },
      });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).not.toContain('password hashes');
      expect(exported.stderr).toMatch(/0 secret records and 1 plugins' code from the PostgreSQL database/);
      const kinds = parseAllDocuments(exported.stdout).map((d: any) => d.toJS().kind);
      expect(kinds[0]).toBe('Backup');
      expect(kinds).not.toContain('SecretRecords');
      expect(kinds.filter((k) => k === 'PluginCode')).toHaveLength(1);

      const targetDir = path.join(tmp, 'sqlite-data');
      const imported = await svc(['import', '--data-dir', targetDir, '-f', '-'], { input: exported.stdout });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toContain("1 plugins' code into the SQLite database in");
      expect(existsSync(path.join(targetDir, 'plugins/notes/plugin.yaml'))).toBe(true);
      // Its owner's alone, as a server makes it: the folders 0700, the files 0600.
      const modeOf = async (entry: string) => (await stat(path.join(targetDir, entry))).mode & 0o777;
      for (const folder of ['', 'plugins', 'plugins/notes']) expect(await modeOf(folder), folder).toBe(0o700);
      for (const file of ['svc.db', 'plugins/notes/plugin.yaml']) expect(await modeOf(file), file).toBe(0o600);

      // Without secrets nobody can sign in: the harness's administrator is made again only on an empty store, so
      // its password is set with svc admin reset-password, as the documentation says to do after such a restore.
      const reset = await svc(['admin', 'reset-password', 'admin', '--data-dir', targetDir, '--password-stdin'], {
        input: 'admin-password-for-tests',
      });
      expect(reset.code, reset.stderr).toBe(0);
      const target = await startTestServer({ backend: 'sqlite', pluginsDirs: [], env: { SVC_DATA_DIR: targetDir } });
      try {
        expect((await pluginReport(target, 'notes')).phase).toBe('STARTED');
        const served = await target.request('GET', `${NOTES}/first`);
        expect(served.status).toBe(200);
        const { resourceVersion: _a, ...was } = created.body.metadata;
        const { resourceVersion: _b, ...is } = served.body.metadata;
        expect(is).toEqual(was);
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  }, 60_000);

  it('serves from the schema --database-schema (SVC_DATABASE_SCHEMA) names, where svc export finds it', async () => {
    const schema = `t_schema_${Math.random().toString(36).slice(2, 8)}`;
    const settings = settingsFromArgs(['--database-schema', schema, '--data-dir', path.join(tmp, 'schema-data')], {
      SVC_DATABASE_URL: PG_URL,
      SVC_HTTPS_PORT: 'off',
      SVC_ADMIN_PASSWORD: 'admin-password-for-tests',
    });
    const config = loadConfig(settings);
    expect(config.databaseSchema).toBe(schema);
    const server = await createServer(config, { logger: pino({ level: 'silent' }) });
    await server.close();
    try {
      const exported = await svc(['export', '--no-secrets', '--database-schema', schema], {
        env: { SVC_DATABASE_URL: PG_URL },
      });
      expect(exported.code, exported.stderr).toBe(0);
      const users = parseAllDocuments(exported.stdout)
        .map((d: any) => d.toJS())
        .filter((o) => o.kind === 'User');
      expect(users.map((u) => u.metadata.name)).toEqual(['admin']);
    } finally {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }, 60_000);
});
