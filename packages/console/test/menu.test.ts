import { describe, expect, it } from 'vitest';
import type { RouteRecordNormalized } from 'vue-router';
import { menuOf } from '../src/menu.js';

/** Just what menuOf reads of a route record. */
const route = (name: string, path: string, meta: RouteRecordNormalized['meta'] = {}) =>
  ({ name, path, meta }) as RouteRecordNormalized;

const ROUTES = [
  route('Root', '/console'),
  route('Overview', '/console/'),
  route('Users', '/console/users', {
    permissions: ['system:users:view'],
    menu: { name: 'Users', group: 'System', priority: 100 },
  }),
  route('Roles', '/console/roles', {
    permissions: ['system:roles:view'],
    menu: { name: 'Roles', group: 'System', priority: 110 },
  }),
  route('Posts', '/console/posts', {
    permissions: ['system:posts:manage'],
    menu: { name: 'Posts', group: 'Content', priority: 20 },
  }),
  route('Persons', '/console/persons', {
    permissions: ['plugin:people:view'],
    menu: { name: 'Persons', priority: 10 },
  }),
  route('Apples', '/console/apples', { menu: { name: 'Apples', priority: 10 } }),
  route('UcRoot', '/uc'),
  route('UcPosts', '/uc/posts', { permissions: ['uc:posts:own'], menu: { name: 'My posts' } }),
];

/** A menu as "group: entry, entry" lines, to compare by eye. */
const lines = (held: string[], parent = 'Root') =>
  menuOf(ROUTES, parent, held).map((g) => `${g.name || '-'}: ${g.entries.map((e) => e.entry.name).join(', ')}`);

describe('the side menu', () => {
  it.each([
    [['*'], ['-: Apples, Persons', 'Content: Posts', 'System: Users, Roles']],
    [[], ['-: Apples']],
    [['plugin:people:view'], ['-: Apples, Persons']],
    [
      ['system:roles:view', 'uc:posts:own'],
      ['-: Apples', 'System: Roles'],
    ],
  ])('holding %j shows %j', (held, expected) => {
    expect(lines(held)).toEqual(expected);
  });

  it('shows the personal center its own routes only, and nothing under an unknown root', () => {
    expect(lines(['*'], 'UcRoot')).toEqual(['-: My posts']);
    expect(lines(['*'], 'Nowhere')).toEqual([]);
  });
});
