import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, CONSOLE, login, type Session, userWithRoles } from './auth-harness.js';
import { startTestServer, TEST_ADMIN, type TestServer } from './harness.js';
import { multipart, tgzOf } from './plugin-archives.js';

/**
 * The authorization gate remembers each request line's decision per role expansion. These are the changes that must
 * still reach a caller whose roles did not change: a model appearing (a plugin-scoped rule starts to match) or
 * going, and a role being edited.
 */
// A plugin with a model and nothing else: starting it changes no role, only what owns the path.
const NOTES_PLUGIN = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures/plugins-watch/notes');
const NOTES = '/apis/notes.svc.run/v1/notes';

describe('remembered authorization decisions follow the server', () => {
  let t: TestServer;
  let reader: Session;
  const state = (enable: boolean) => t.request('PUT', `${CONSOLE}/plugins/notes/plugin-state`, { enable });

  beforeAll(async () => {
    t = await startTestServer({ pluginsDirs: [] });
    const admin = await login(t, TEST_ADMIN.username, TEST_ADMIN.password);
    const { body, headers } = multipart(await tgzOf(NOTES_PLUGIN));
    expect((await t.request('POST', `${CONSOLE}/plugins/install`, body, headers)).status).toBe(201);
    const role = {
      apiVersion: 'v1alpha1',
      kind: 'Role',
      metadata: { name: 'note-lister' },
      rules: [{ apiGroups: ['notes.svc.run'], resources: ['notes/notes'], verbs: ['list'] }],
    };
    expect((await t.request('POST', '/api/v1alpha1/roles', role)).status).toBe(201);
    reader = await userWithRoles(t, admin, 'reader', ['note-lister']);
  });
  afterAll(() => t.close());

  it('denies, then allows the same request line once the plugin that owns the model starts', async () => {
    // No model serves the path yet, so no plugin owns it and the rule naming notes/notes cannot match.
    expect((await as(t, reader)('GET', NOTES)).status).toBe(403);
    expect((await as(t, reader)('GET', NOTES)).status).toBe(403);
    expect((await state(true)).body.status.phase).toBe('STARTED');
    expect((await as(t, reader)('GET', NOTES)).status).toBe(200);
  });

  it('follows an edit of the role at once', async () => {
    const role = (await t.request('GET', '/api/v1alpha1/roles/note-lister')).body;
    role.rules[0].verbs = ['get'];
    expect((await t.request('PUT', '/api/v1alpha1/roles/note-lister', role)).status).toBe(200);
    expect((await as(t, reader)('GET', NOTES)).status).toBe(403);
  });
});
