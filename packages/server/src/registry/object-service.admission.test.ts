import { forbidden } from '@svc/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdmissionRequest } from './admission.js';
import type { CommittedChange } from './object-service.js';
import { type Fixture, openFixture, reasonOf, widget } from './object-service-fixtures.suite.js';

let f: Fixture;
beforeEach(async () => {
  f = await openFixture();
});
afterEach(() => f.close());

const RESOURCE = 'example.com/widgets';
const USER = { kind: 'user', principal: { username: 'ann', via: 'session' } } as const;

/** Adds checks and effects that write what they saw into `log`; a check named in `refuse` refuses. */
function record(log: string[], refuse: (request: AdmissionRequest) => boolean = () => false) {
  const line = (who: string, r: AdmissionRequest) =>
    `${who} ${r.operation}${r.subresource ? `/${r.subresource}` : ''} ${r.object.metadata.name}${r.dryRun ? ' dry-run' : ''}`;
  f.service.admission.add(RESOURCE, (r) => void log.push(line('check1', r)));
  f.service.admission.add(RESOURCE, (r) => {
    log.push(line('check2', r));
    if (refuse(r)) throw forbidden(`no ${r.object.metadata.name}`);
  });
  f.service.admission.addEffect(RESOURCE, async (r) => void log.push(line('effect', r)));
}

describe('admission inside a write', () => {
  it('runs the checks in the order added, then the effects, for each kind of write', async () => {
    const log: string[] = [];
    record(log);
    const created = (await f.service.create(f.widgets, widget('w1'))).object;
    await f.service.update(f.widgets, 'w1', created, { subresource: 'status' });
    await f.service.delete(f.widgets, 'w1');
    expect(log).toEqual([
      'check1 create w1',
      'check2 create w1',
      'effect create w1',
      'check1 update/status w1',
      'check2 update/status w1',
      'effect update/status w1',
      'check1 delete w1',
      'check2 delete w1',
      'effect delete w1',
    ]);
  });

  it('shows a check the object as it will be stored, the stored one before it, and who writes', async () => {
    // Copied as seen: the service goes on to stamp the stored object with its revision.
    const seen: Array<Pick<AdmissionRequest, 'operation' | 'actor' | 'object' | 'prevObject'>> = [];
    f.service.admission.add(RESOURCE, ({ operation, actor, object, prevObject }) => {
      seen.push(structuredClone({ operation, actor, object, prevObject }));
    });
    const created = (await f.service.create(f.widgets, widget('w1', { size: 1 }), { actor: USER })).object;
    await f.service.update(f.widgets, 'w1', { ...created, spec: { size: 2 } });
    expect(seen[0]).toMatchObject({
      operation: 'create',
      actor: USER,
      object: { metadata: { uid: created.metadata.uid, version: 0 } },
    });
    expect(seen[0]!.prevObject).toBeUndefined();
    expect(seen[1]).toMatchObject({
      operation: 'update',
      actor: { kind: 'system' },
      object: { spec: { size: 2 }, metadata: { version: 1 } },
      prevObject: { spec: { size: 1 } },
    });
  });

  it('a refusal stops the later checks and the effects, and nothing is written', async () => {
    const log: string[] = [];
    record(log, () => true);
    expect(await reasonOf(() => f.service.create(f.widgets, widget('w1')))).toBe('Forbidden');
    expect(log).toEqual(['check1 create w1', 'check2 create w1']);
    expect(await f.store.count(RESOURCE)).toBe(0);
    expect(f.widgets.index.has('w1')).toBe(false);
  });

  it('keeps the owner label out of a user’s hands before any check runs', async () => {
    const log: string[] = [];
    record(log);
    const body = widget('w1', {}, { labels: { 'plugin.svc.run/plugin-name': 'people' } });
    expect(await reasonOf(() => f.service.create(f.widgets, body, { actor: USER }))).toBe('Forbidden');
    expect(log).toEqual([]);
  });
});

describe('admission of a collection delete: all or nothing', () => {
  beforeEach(async () => {
    for (const name of ['a', 'b', 'c']) await f.service.create(f.widgets, widget(name));
  });

  it('asks about every deletion first as a dry run (checks only), then deletes with checks and effects', async () => {
    const log: string[] = [];
    record(log);
    expect(await f.service.deleteCollection(f.widgets, { labels: [], fields: [] })).toBe(3);
    expect(log.slice(0, 6)).toEqual([
      'check1 delete a dry-run',
      'check2 delete a dry-run',
      'check1 delete b dry-run',
      'check2 delete b dry-run',
      'check1 delete c dry-run',
      'check2 delete c dry-run',
    ]);
    // The deletions themselves run side by side: their lines may interleave.
    expect(log.slice(6).sort()).toEqual([
      'check1 delete a',
      'check1 delete b',
      'check1 delete c',
      'check2 delete a',
      'check2 delete b',
      'check2 delete c',
      'effect delete a',
      'effect delete b',
      'effect delete c',
    ]);
  });

  it('deletes none when one deletion is refused', async () => {
    const log: string[] = [];
    record(log, (r) => r.object.metadata.name === 'b');
    expect(await reasonOf(() => f.service.deleteCollection(f.widgets, { labels: [], fields: [] }))).toBe('Forbidden');
    expect(f.widgets.index.names()).toEqual(['a', 'b', 'c']);
    expect(log.some((l) => l.startsWith('effect'))).toBe(false);
  });
});

describe('commit announcements', () => {
  it('announce each write once it is stored, with its revision and the object before it', async () => {
    const changes: CommittedChange[] = [];
    f.service.onCommitted((change) => changes.push(change));
    const created = (await f.service.create(f.widgets, widget('w1', { size: 1 }))).object;
    await f.service.update(f.widgets, 'w1', { ...created, spec: { size: 2 } });
    await f.service.delete(f.widgets, 'w1');
    expect(changes.map((c) => [c.type, c.revision, c.object.spec, c.prevObject?.spec])).toEqual([
      ['ADDED', 1, { size: 1 }, undefined],
      ['MODIFIED', 2, { size: 2 }, { size: 1 }],
      ['DELETED', 3, { size: 2 }, { size: 2 }],
    ]);
    expect(changes[2]!.object.metadata.resourceVersion).toBe('3');
  });

  it('a listener that throws neither fails the write nor stops the others; its error is handed on', async () => {
    const heard: string[] = [];
    f.service.onCommitted(() => {
      throw new Error('listener broke');
    });
    const stop = f.service.onCommitted((change) => heard.push(change.type));
    await f.service.create(f.widgets, widget('w1'));
    stop();
    await f.service.delete(f.widgets, 'w1');
    expect(heard).toEqual(['ADDED']);
    expect(f.listenerErrors.map((e) => (e as Error).message)).toEqual(['listener broke', 'listener broke']);
  });
});
