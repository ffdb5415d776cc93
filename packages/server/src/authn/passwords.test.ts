import { describe, expect, it } from 'vitest';
import { checkPasswordRules, PasswordHasher } from './passwords.js';

// Cheap parameters: these tests are about the format and the comparison, not the cost.
const hasher = new PasswordHasher({ N: 1024, r: 8, p: 1 });

describe('password hashes', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('s3cret passphrase');
    expect(await hasher.verify('s3cret passphrase', stored)).toBe(true);
    expect(await hasher.verify('s3cret passphrasE', stored)).toBe(false);
  });

  it('salts every hash and stores its parameters with it', async () => {
    const a = await hasher.hash('same password');
    const b = await hasher.hash('same password');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toContain('same password');
  });

  it('verifies a hash made with other parameters (they are read from the hash)', async () => {
    const old = await new PasswordHasher({ N: 2048, r: 4, p: 2 }).hash('password one');
    expect(await hasher.verify('password one', old)).toBe(true);
  });

  it('refuses unreadable or absurd stored hashes instead of throwing', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$3$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAA',
      `scrypt$${2 ** 30}$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAA`,
    ]) {
      expect(await hasher.verify('anything', stored)).toBe(false);
    }
  });

  it('treats canonically equivalent Unicode spellings as the same password', async () => {
    const stored = await hasher.hash('caf\u00e9 au lait');
    expect(await hasher.verify('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('runs at most `concurrency` hashes at once', async () => {
    const limited = new PasswordHasher({ N: 1024, r: 8, p: 1 }, 1);
    const results = await Promise.all(['a', 'b', 'c'].map((p) => limited.hash(`password ${p}`)));
    expect(new Set(results).size).toBe(3);
  });
});

describe('password rules', () => {
  it('needs at least 8 characters, with a message naming the field', () => {
    expect(() => checkPasswordRules('short')).toThrow(/password must be at least 8 characters/);
    expect(() => checkPasswordRules(undefined)).toThrow(/password is required/);
    expect(() => checkPasswordRules('x'.repeat(2000))).toThrow(/at most 1024/);
    expect(checkPasswordRules('long enough')).toBe('long enough');
    try {
      checkPasswordRules('short');
    } catch (error) {
      expect(error).toMatchObject({ status: 400, errors: [{ path: '/password' }] });
    }
  });
});
