/** Conformance, part four: the secret store beside the history, and the move of secrets out of an old history. */
import { describe, expect, it } from 'vitest';
import { SECRET_RESOURCES_ONCE_IN_HISTORY } from './records.js';
import { encodeAs, type SuiteContext, WIDGETS } from './store-fixtures.suite.js';
import type { Change, SecretStore, Store } from './types.js';

const [CREDENTIALS, SESSIONS, DIGESTS] = SECRET_RESOURCES_ONCE_IN_HISTORY as [string, string, string];
const bytes = (text: string) => Buffer.from(text);
const raw = (text: string) => () => bytes(text);

async function all(secrets: SecretStore, kind: string, batchSize?: number): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  for await (const batch of secrets.scan(kind, batchSize))
    for (const [name, value] of batch) found.push([name, value.toString()]);
  return found;
}

/** What a change carries, as text: where it was, and its values. */
const described = (change: Change) =>
  `${change.resource}/${change.name} ${change.value.toString()} ${change.prevValue?.toString() ?? ''}`;

export function describeStoreSecrets({ store, openStore }: SuiteContext): void {
  describe('secrets', () => {
    it('puts, replaces, deletes and scans records by kind and name', async () => {
      const { secrets } = store();
      expect(await secrets.get(CREDENTIALS, 'alice')).toBeUndefined();
      await secrets.put(CREDENTIALS, 'alice', bytes('one'));
      await secrets.put(CREDENTIALS, 'alice', bytes('two'));
      await secrets.put(SESSIONS, 'alice', bytes('a session'));
      expect((await secrets.get(CREDENTIALS, 'alice'))?.toString()).toBe('two');
      expect(await secrets.replace(CREDENTIALS, 'alice', bytes('three'))).toBe(true);
      expect(await secrets.replace(CREDENTIALS, 'bob', bytes('x'))).toBe(false);
      expect(await secrets.get(CREDENTIALS, 'bob')).toBeUndefined();
      for (const name of ['carol', 'bob']) await secrets.put(CREDENTIALS, name, bytes(name));
      expect(await all(secrets, CREDENTIALS, 2)).toEqual([
        ['alice', 'three'],
        ['bob', 'bob'],
        ['carol', 'carol'],
      ]);
      expect(await secrets.delete(CREDENTIALS, 'alice')).toBe(true);
      expect(await secrets.delete(CREDENTIALS, 'alice')).toBe(false);
      expect(await all(secrets, CREDENTIALS)).toEqual([
        ['bob', 'bob'],
        ['carol', 'carol'],
      ]);
      expect(await all(secrets, SESSIONS)).toEqual([['alice', 'a session']]);
    });

    it('lists the kinds that hold records, sorted', async () => {
      const { secrets } = store();
      expect(await secrets.kinds()).toEqual([]);
      await secrets.put(SESSIONS, 'alice', bytes('a session'));
      await secrets.put(CREDENTIALS, 'alice', bytes('a hash'));
      expect(await secrets.kinds()).toEqual(['security.svc.run/credentials', 'security.svc.run/sessions']);
      await secrets.delete(SESSIONS, 'alice');
      expect(await secrets.kinds()).toEqual(['security.svc.run/credentials']);
    });

    it('takes no revision, leaves no event and no object, and survives a reopen', async () => {
      const before = await store().create(WIDGETS, 'a', encodeAs('a'));
      await store().secrets.put(SESSIONS, 's1', bytes('scrypt$secret'));
      await store().secrets.replace(SESSIONS, 's1', bytes('scrypt$again'));
      await store().secrets.put(SESSIONS, 's2', bytes('gone'));
      await store().secrets.delete(SESSIONS, 's2');
      expect(await store().currentRevision()).toBe(before.revision);
      expect((await store().changesSince(0)).map((change) => change.name)).toEqual(['a']);
      expect(await store().count(SESSIONS)).toBe(0);
      await store().close();
      const reopened = await openStore();
      expect(await all(reopened.secrets, SESSIONS)).toEqual([['s1', 'scrypt$again']]);
      expect((await reopened.changesSince(0)).map((change) => change.name)).toEqual(['a']);
    });

    it('on open, moves records an earlier version kept in the history into the secrets, and erases their history', async () => {
      // The old layout: authentication's records written as objects, so every write of theirs is an event.
      const first = await store().create(WIDGETS, 'kept', encodeAs('kept'));
      const hash = await store().create(CREDENTIALS, 'alice', raw('scrypt$old'));
      await store().update(CREDENTIALS, 'alice', hash.revision, raw('scrypt$new'));
      const session = await store().create(SESSIONS, 'digest-1', raw('{"username":"alice"}'));
      await store().delete(SESSIONS, 'digest-1', session.revision);
      // A record the table already holds is replaced by the one in the history (written later, by an older version).
      await store().secrets.put(DIGESTS, 'ci', bytes('stale'));
      await store().create(DIGESTS, 'ci', raw('token-digest'));
      const later = await store().create(WIDGETS, 'later', encodeAs('later'));
      const last = await store().create(SESSIONS, 'digest-2', raw('{"username":"bob"}'));
      await store().close();

      const check = async (opened: Store) => {
        expect(await all(opened.secrets, CREDENTIALS)).toEqual([['alice', 'scrypt$new']]);
        expect(await all(opened.secrets, SESSIONS)).toEqual([['digest-2', '{"username":"bob"}']]);
        expect(await all(opened.secrets, DIGESTS)).toEqual([['ci', 'token-digest']]);
        for (const resource of SECRET_RESOURCES_ONCE_IN_HISTORY) expect(await opened.count(resource)).toBe(0);
        expect(await opened.get(CREDENTIALS, 'alice')).toBeUndefined();
        const history = await opened.changesSince(0);
        expect(history.map((change) => [change.revision, change.resource, change.name])).toEqual([
          [first.revision, WIDGETS, 'kept'],
          [later.revision, WIDGETS, 'later'],
        ]);
        for (const change of history) expect(described(change)).not.toMatch(/scrypt\$|digest|username/);
        // The newest event was a secret's: its revision is not handed out again.
        expect(await opened.currentRevision()).toBe(last.revision);
      };
      const reopened = await openStore();
      await check(reopened);
      await reopened.close();
      // Idempotent: another open finds the same state, and writes go on after the last revision ever used.
      const again = await openStore();
      await check(again);
      expect((await again.create(WIDGETS, 'next', encodeAs('next'))).revision).toBe(last.revision + 1);
    });
  });
}
