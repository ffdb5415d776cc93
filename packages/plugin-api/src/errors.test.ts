import { describe, expect, it } from 'vitest';
import { ApiError, conflict, isNotFound, notFound } from './errors.js';

describe('isNotFound', () => {
  it.each([
    ['a NotFound', notFound('Widget "w1" not found'), true],
    ['an ApiError made with the NotFound reason', new ApiError('NotFound', 'gone'), true],
    ['an ApiError of another plugin-api copy, by shape', { svcApiError: true, status: 404, reason: 'NotFound' }, true],
    ['a Conflict', conflict('taken'), false],
    ['a plain error', new Error('not found'), false],
    ['an object that only says 404', { status: 404 }, false],
    ['undefined', undefined, false],
    ['null', null, false],
  ])('%s: %s', (_, value, expected) => {
    expect(isNotFound(value)).toBe(expected);
  });
});
