import { describe, expect, it } from 'vitest';
import { REDACTED, redacted } from './redact.js';

describe('redacted', () => {
  it('replaces secrets wherever they are, and keeps everything else', () => {
    const body = {
      name: 'ann',
      password: 'hunter2-hunter2',
      nested: [{ oldPassword: 'a', newPassword: 'b', Token: 'c' }],
      metadata: { annotations: { 'security.svc.run/access-token': 'pat_secret', other: 'kept' } },
      spec: { name: 'ci', roles: ['viewer'] },
      endSessionUrl: 'https://idp.example.com/logout?id_token_hint=eyJ.x.y',
    };
    expect(redacted(body)).toEqual({
      name: 'ann',
      password: REDACTED,
      nested: [{ oldPassword: REDACTED, newPassword: REDACTED, Token: REDACTED }],
      metadata: { annotations: { 'security.svc.run/access-token': REDACTED, other: 'kept' } },
      spec: { name: 'ci', roles: ['viewer'] },
      endSessionUrl: REDACTED,
    });
    expect(body.password).toBe('hunter2-hunter2');
  });

  it.each([[null], [3], ['text'], [undefined]])('passes %j through', (value) => {
    expect(redacted(value)).toBe(value);
  });
});
