import { describe, expect, it } from 'vitest';
import type { ChangeType } from '../store/types.js';
import { transition } from './transitions.js';

describe('selection transitions', () => {
  const cases: Array<[string, ChangeType, boolean, boolean, ChangeType | undefined]> = [
    ['a create inside the selection', 'ADDED', false, true, 'ADDED'],
    ['a create outside the selection', 'ADDED', false, false, undefined],
    ['an update that stays inside', 'MODIFIED', true, true, 'MODIFIED'],
    ['an update that enters', 'MODIFIED', false, true, 'ADDED'],
    ['an update that leaves', 'MODIFIED', true, false, 'DELETED'],
    ['an update that stays outside', 'MODIFIED', false, false, undefined],
    ['a removal of a selected object', 'DELETED', true, false, 'DELETED'],
    ['a removal of an unselected object', 'DELETED', false, false, undefined],
  ];
  it.each(cases)('%s', (_name, type, wasIn, isIn, expected) => {
    expect(transition(type, wasIn, isIn)).toBe(expected);
  });
});
