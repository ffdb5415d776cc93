import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeBatch } from './audit-sqlite.js';

describe("the audit batch's one string", () => {
  it('carries every record back as it was, whatever its text holds', () => {
    const records = [
      {
        time: '2026-11-27T06:00:00.000Z',
        username: 'oidc:ann\tsmith\n"x"',
        verb: 'create',
        resource: 'persons',
        name: 'p-1',
        event: JSON.stringify({ user: { username: 'oidc:ann\tsmith\n"x"' }, note: 'a\u2028b' }),
      },
      { time: '2026-11-27T06:00:01.000Z', username: 'admin', verb: 'post', resource: '', name: '', event: '{}' },
    ];
    expect(decodeBatch(encodeBatch(records))).toEqual(records);
    expect(encodeBatch(records).split('\n')).toHaveLength(2);
    expect(decodeBatch(encodeBatch([]))).toEqual([]);
  });
});
