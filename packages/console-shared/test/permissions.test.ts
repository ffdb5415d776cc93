import { describe, expect, it } from 'vitest';
import { allows } from '../src/allows.js';

describe('UI permissions', () => {
  it.each([
    [[], [], false, true],
    [[], ['plugin:people:view'], false, false],
    [['*'], ['plugin:people:view', 'system:users:view'], false, true],
    [['plugin:people:view'], ['plugin:people:view'], false, true],
    [['plugin:people:view'], ['plugin:people:view', 'plugin:people:manage'], false, false],
    [['plugin:people:view'], ['plugin:people:view', 'plugin:people:manage'], true, true],
    [['plugin:people:view'], ['plugin:people:manage', 'system:users:view'], true, false],
    [['plugin:people:*'], ['plugin:people:view'], false, false],
  ])('holding %j allows %j (any: %s): %s', (held, required, any, expected) => {
    expect(allows(held, required, any)).toBe(expected);
  });
});
