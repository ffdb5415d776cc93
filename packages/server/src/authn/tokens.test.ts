import { ACCESS_TOKEN_ANNOTATION } from '@svc/plugin-api';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../authz/principal.js';
import { normalizeModelDefinition } from '../objects/model-definition.js';
import { decodeObject } from '../registry/codec.js';
import { ModelRegistry } from '../registry/model-registry.js';
import { ObjectService } from '../registry/object-service.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { Store } from '../store/types.js';
import { personalAccessTokenModel, userModel } from './models.js';
import { PersonalAccessTokens } from './tokens.js';
import { UserDirectory } from './user-directory.js';

const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** A token service over an in-memory store; role management is a stub (unit test only). */
async function setup(held: Record<string, string[]> = { alice: ['editor', 'viewer'] }) {
  const store = openSqliteStore({ path: ':memory:' });
  stores.push(store);
  const registry = new ModelRegistry(store);
  const objects = new ObjectService(store);
  const userServed = await registry.register(normalizeModelDefinition(userModel, { kind: 'system' }), 'core');
  const tokenServed = await registry.register(
    normalizeModelDefinition(personalAccessTokenModel, { kind: 'system' }),
    'core',
  );
  for (const name of Object.keys(held)) {
    await objects.create(userServed, { apiVersion: 'v1alpha1', kind: 'User', metadata: { name }, spec: {} });
  }
  const users = new UserDirectory(userServed, objects);
  await users.start();
  let now = Date.parse('2026-03-01T12:00:00Z');
  const tokens = new PersonalAccessTokens(tokenServed, {
    store,
    objects,
    users,
    rolesOf: () => async (username) => held[username] ?? [],
    now: () => now,
  });
  await tokens.start();
  return { store, objects, userServed, tokenServed, users, tokens, advance: (ms: number) => (now += ms) };
}

const alice: Principal = { username: 'alice', via: 'session' };

describe('personal access tokens', () => {
  it("creates a token for a subset of the creator's roles and authenticates with exactly those roles", async () => {
    const { tokens } = await setup();
    const { object, token } = await tokens.create(alice, { spec: { name: 'ci', roles: ['viewer'] } });
    expect(token).toMatch(/^pat_[\w-]{43}$/);
    expect(object.metadata.annotations?.[ACCESS_TOKEN_ANNOTATION]).toBe(token);
    expect(object.spec).toMatchObject({ name: 'ci', username: 'alice', roles: ['viewer'] });
    expect(tokens.authenticate(token)).toEqual({
      username: 'alice',
      via: 'token',
      restrictedToRoles: ['viewer'],
      tokenName: object.metadata.name,
    });
    expect(tokens.authenticate(`${token}x`)).toBeUndefined();
  });

  it('keeps the secret out of the stored object, and stores only its digest', async () => {
    const { tokens, store, tokenServed } = await setup();
    const { object, token } = await tokens.create(alice, { spec: { name: 'ci', roles: [] } });
    const stored = await store.get(tokenServed.model.resource, object.metadata.name);
    expect(stored!.value.toString()).not.toContain(token);
    expect(stored!.value.toString()).not.toContain(ACCESS_TOKEN_ANNOTATION);
    const digests = [];
    for await (const batch of store.secrets.scan('security.svc.run/tokendigests')) digests.push(...batch);
    expect(digests.map(([name]) => name)).toEqual([object.metadata.name]);
    for (const [, value] of digests) expect(value.toString()).not.toContain(token);
  });

  it("refuses roles the creator does not hold (403), and more than a token-authenticated creator's token carries", async () => {
    const { tokens } = await setup();
    await expect(tokens.create(alice, { spec: { name: 'x', roles: ['super-role'] } })).rejects.toMatchObject({
      status: 403,
    });
    const viaToken: Principal = { username: 'alice', via: 'token', restrictedToRoles: ['viewer'] };
    await expect(tokens.create(viaToken, { spec: { name: 'x', roles: ['editor'] } })).rejects.toMatchObject({
      status: 403,
    });
    await expect(tokens.create(viaToken, { spec: { name: 'x', roles: ['viewer'] } })).resolves.toBeDefined();
    await expect(
      tokens.create({ username: undefined, via: 'anonymous' }, { spec: { name: 'x', roles: [] } }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });

  it('validates the request with a 400 naming the field', async () => {
    const { tokens } = await setup();
    await expect(tokens.create(alice, { spec: { roles: [] } })).rejects.toMatchObject({
      status: 400,
      errors: [{ path: '/spec/name' }],
    });
    await expect(
      tokens.create(alice, { spec: { name: 'x', expiresAt: '2020-01-01T00:00:00Z' } }),
    ).rejects.toMatchObject({
      status: 400,
      errors: [{ path: '/spec/expiresAt', message: 'must be in the future' }],
    });
  });

  it('stops authenticating when the token expires, is revoked or deleted, or its owner is disabled', async () => {
    const { tokens, advance, objects, userServed } = await setup();
    const expiring = await tokens.create(alice, { spec: { name: 'a', roles: [], expiresAt: '2026-03-01T13:00:00Z' } });
    expect(tokens.authenticate(expiring.token)).toBeDefined();
    advance(3_600_000);
    expect(tokens.authenticate(expiring.token)).toBeUndefined();

    const revoked = await tokens.create(alice, { spec: { name: 'b', roles: [] } });
    await tokens.revoke(alice, revoked.object.metadata.name);
    expect(tokens.authenticate(revoked.token)).toBeUndefined();

    const deleted = await tokens.create(alice, { spec: { name: 'c', roles: [] } });
    await tokens.remove(alice, deleted.object.metadata.name);
    expect(tokens.authenticate(deleted.token)).toBeUndefined();

    const owned = await tokens.create(alice, { spec: { name: 'd', roles: [] } });
    await objects.patch(userServed, 'alice', (u) => ({ ...u, spec: { disabled: true } }));
    expect(tokens.authenticate(owned.token)).toBeUndefined();
  });

  it("hides other users' tokens (404) from get, revoke and delete", async () => {
    const { tokens } = await setup({ alice: [], bob: [] });
    const { object } = await tokens.create(alice, { spec: { name: 'mine', roles: [] } });
    const bob: Principal = { username: 'bob', via: 'session' };
    for (const call of [
      () => tokens.getOwn(bob, object.metadata.name),
      () => tokens.revoke(bob, object.metadata.name),
      () => tokens.remove(bob, object.metadata.name),
    ]) {
      await expect(call()).rejects.toMatchObject({ status: 404 });
    }
  });

  it('records lastUsedAt at most once a minute', async () => {
    const { tokens, advance, objects, store, tokenServed } = await setup();
    const { object, token } = await tokens.create(alice, { spec: { name: 'ci', roles: [] } });
    const created = await store.currentRevision();
    // The write is made off the request's path: wait until the stored token shows it.
    const shows = (time: string) =>
      expect.poll(async () => (await objects.get(tokenServed, object.metadata.name)).status?.lastUsedAt).toBe(time);
    tokens.authenticate(token);
    await shows('2026-03-01T12:00:00.000Z');
    advance(30_000);
    tokens.authenticate(token);
    advance(31_000);
    tokens.authenticate(token);
    await shows('2026-03-01T12:01:01.000Z');
    // Every lastUsedAt the token's history holds: the use 30 s after the first wrote nothing.
    const written = (await store.changesSince(created))
      .filter((change) => change.name === object.metadata.name)
      .map((change) => decodeObject(change.value).status?.lastUsedAt);
    expect(written).toEqual(['2026-03-01T12:00:00.000Z', '2026-03-01T12:01:01.000Z']);
  });

  it('survives a restart: a new service over the same store knows the tokens', async () => {
    const { tokens, store, objects, tokenServed, users } = await setup();
    const { token } = await tokens.create(alice, { spec: { name: 'ci', roles: ['viewer'] } });
    const fresh = new PersonalAccessTokens(tokenServed, { store, objects, users, rolesOf: () => undefined });
    await fresh.start();
    expect(fresh.authenticate(token)?.username).toBe('alice');
  });

  it('refuses token writes that would change what a token may do, and creates outside the token service', async () => {
    const { tokens, objects, tokenServed } = await setup();
    const { object } = await tokens.create(alice, { spec: { name: 'ci', roles: ['viewer'] } });
    const actor = { kind: 'user' as const, principal: { username: 'root', via: 'session' as const } };
    const widen = objects.patch(
      tokenServed,
      object.metadata.name,
      (o) => ({ ...o, spec: { ...o.spec, roles: ['editor'] } }),
      { actor },
    );
    await expect(widen).rejects.toMatchObject({ status: 400 });
    const forge = objects.create(
      tokenServed,
      {
        apiVersion: 'security.svc.run/v1alpha1',
        kind: 'PersonalAccessToken',
        metadata: { name: 'f' },
        spec: { name: 'f', username: 'alice', roles: [] },
      },
      { actor },
    );
    await expect(forge).rejects.toMatchObject({ status: 403 });
  });

  it("removes a deleted user's tokens", async () => {
    const { tokens, objects, userServed, tokenServed } = await setup();
    const { object } = await tokens.create(alice, { spec: { name: 'ci', roles: [] } });
    await objects.delete(userServed, 'alice');
    // Removed by the token service once it sees the delete, off the delete's path.
    await expect
      .poll(() => objects.get(tokenServed, object.metadata.name).catch((error: unknown) => error))
      .toMatchObject({ status: 404 });
  });
});
