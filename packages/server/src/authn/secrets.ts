import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The random secrets authentication hands out (session ids, CSRF tokens, access tokens) and how they are kept. They
 * carry 256 bits of entropy, so a fast SHA-256 digest is enough to store them: nobody can guess a preimage, and only
 * passwords (low entropy, chosen by people) need a slow hash.
 */

/** `crypto.hash` (Node 20.12+) is cheaper than a Hash object, and a digest is taken on every authenticated request. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** 32 random bytes, base64url (43 characters), with an optional prefix such as `pat_`. */
export function randomSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** The digest a secret is stored and looked up under; never the secret itself. */
export function digestOf(secret: string): string {
  return oneShotHash
    ? oneShotHash('sha256', secret, 'base64url')
    : createHash('sha256').update(secret).digest('base64url');
}

/** Compares two strings without leaking, through timing, how long a prefix they share. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Lengths are not secret here (every digest has the same length); timingSafeEqual needs equal lengths.
  return left.length === right.length && timingSafeEqual(left, right);
}
