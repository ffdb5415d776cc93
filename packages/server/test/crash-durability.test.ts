import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PEOPLE_PLUGINS, PERSONS, person, TEST_ADMIN } from './harness.js';
import { signInOver as signIn, spawnServe } from './serve-process.js';

function serve(dataDir: string) {
  return spawnServe({
    SVC_DATA_DIR: dataDir,
    SVC_PLUGINS_DIR: PEOPLE_PLUGINS,
    SVC_LOG_LEVEL: 'warn',
    SVC_ADMIN_PASSWORD: TEST_ADMIN.password,
  });
}

/** A 2xx answer means the write survives a kill -9 of the process (SQLite WAL, committed before answering). */
describe('durability of acknowledged writes', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged create across kill -9, with indexes rebuilt to match', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-crash-'));
    dirs.push(dataDir);
    const first = await serve(dataDir);
    const auth = await signIn(first.url);
    const acknowledged: string[] = [];
    let killed = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !killed; i++) {
        const name = `crash-${w}-${i}`;
        try {
          const response = await fetch(`${first.url}${PERSONS}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...auth },
            body: JSON.stringify(person(name, { name: `Crash ${w} ${i}`, age: i % 150 })),
          });
          if (response.status === 201) acknowledged.push(name);
        } catch {
          return; // the server died mid-request: not acknowledged
        }
        if (acknowledged.length >= 300 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    });
    await Promise.all(writers);
    if (first.child.exitCode === null && first.child.signalCode === null) {
      await new Promise((r) => first.child.once('exit', r));
    }

    const second = await serve(dataDir);
    try {
      // The session survives the restart too: it is stored, not held in memory only.
      const list = await (
        await fetch(`${second.url}${PERSONS}?fieldSelector=spec.gender=FEMALE`, { headers: auth })
      ).json();
      const names = new Set(list.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      const missing = acknowledged.filter((n) => !names.has(n));
      expect(missing).toEqual([]);
      expect(list.total).toBe(list.items.length);
      const one = await fetch(`${second.url}${PERSONS}/${acknowledged[0]}`, { headers: auth });
      expect(one.status).toBe(200);
    } finally {
      second.child.kill('SIGKILL');
    }
  });
});
