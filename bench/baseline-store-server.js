// A second create baseline: the bare Fastify POST plus what any durable create must do at the least. It stamps the
// server-owned metadata, serializes the object once and group-commits it (an object row and a history row, the
// shape of svc's SQLite store, WAL with synchronous=NORMAL) before answering 201 with the stored bytes. Comparing svc
// with this one shows what svc's own work per create costs beyond HTTP and storage.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const dir = mkdtempSync(path.join(tmpdir(), 'svc-baseline-store-'));
const db = new Database(path.join(dir, 'store.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE objects (id INTEGER PRIMARY KEY, resource TEXT NOT NULL, name TEXT NOT NULL, revision INTEGER NOT NULL, value BLOB NOT NULL);
  CREATE UNIQUE INDEX objects_by_name ON objects (resource, name);
  CREATE TABLE events (revision INTEGER PRIMARY KEY, type TEXT NOT NULL, resource TEXT NOT NULL, name TEXT NOT NULL,
    prev_revision INTEGER NOT NULL, value BLOB NOT NULL, prev_value BLOB);`);
const insertObject = db.prepare('INSERT INTO objects (resource, name, revision, value) VALUES (?, ?, ?, ?)');
const insertEvent = db.prepare(
  'INSERT INTO events (revision, type, resource, name, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
);
const commit = db.transaction((writes) => {
  for (const w of writes) {
    insertObject.run('persons', w.name, w.revision, w.value);
    insertEvent.run(w.revision, 'ADDED', 'persons', w.name, 0, w.value);
  }
});
let revision = 0;
let pending = [];
const flush = () => {
  const writes = pending;
  pending = [];
  commit(writes);
  for (const w of writes) w.done();
};

const app = Fastify({ logger: false });
app.post('/apis/people.svc.run/v1alpha1/persons', async (request, reply) => {
  const object = request.body;
  const meta = object.metadata;
  meta.uid = randomUUID();
  meta.creationTimestamp = new Date().toISOString();
  meta.version = 0;
  meta.resourceVersion = String(++revision);
  const value = Buffer.from(JSON.stringify(object));
  await new Promise((done) => {
    pending.push({ name: meta.name, revision, value, done });
    if (pending.length === 1) setImmediate(flush);
  });
  return reply.code(201).type('application/json').send(value);
});
const close = () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', close);
process.on('SIGINT', close);
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`baseline listening on http://127.0.0.1:${app.server.address().port}`);
