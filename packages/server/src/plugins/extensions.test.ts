import type { ExtensionObject } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { type DeclaredObject, inDependencyOrder } from './extensions.js';

const DEPENDENCIES = 'rbac.authorization.svc.run/dependencies';
const role = (name: string, ...dependencies: string[]): DeclaredObject => ({
  source: name,
  object: {
    apiVersion: 'v1alpha1',
    kind: 'Role',
    metadata: { name, annotations: dependencies.length ? { [DEPENDENCIES]: JSON.stringify(dependencies) } : {} },
  } as ExtensionObject,
});
const other = (name: string): DeclaredObject => ({
  source: name,
  object: { apiVersion: 'people.svc.run/v1alpha1', kind: 'Person', metadata: { name } } as ExtensionObject,
});

describe('declared objects in dependency order', () => {
  it.each([
    {
      name: 'file order when nothing depends on a later role',
      given: [role('view'), role('manage', 'view'), other('ada')],
      want: ['view', 'manage', 'ada'],
    },
    {
      name: 'a role after the roles it depends on',
      given: [other('ada'), role('manage', 'view'), role('view')],
      want: ['ada', 'view', 'manage'],
    },
    { name: 'transitively', given: [role('a', 'b'), role('b', 'c'), role('c')], want: ['c', 'b', 'a'] },
    {
      name: 'names declared elsewhere are left to admission',
      given: [role('mine', 'editor', 'super-role')],
      want: ['mine'],
    },
    { name: 'a cycle keeps a stable order', given: [role('a', 'b'), role('b', 'a')], want: ['b', 'a'] },
    {
      name: 'a malformed annotation is left to admission',
      given: [
        {
          ...role('x'),
          object: { ...role('x').object, metadata: { name: 'x', annotations: { [DEPENDENCIES]: 'nope' } } },
        },
        role('y'),
      ],
      want: ['x', 'y'],
    },
  ])('$name', ({ given, want }) => expect(inDependencyOrder(given).map((d) => d.source)).toEqual(want));
});
