// Secrets are kept only as HMAC-SHA256(key, token). A keyed hash (rather than a plain one) means a
// copy of the WAL or a checkpoint is useless for guessing tokens without the key, and HMAC is one
// fast pass, which matters because every client request hashes its token.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class TokenHasher {
  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('the token hash key must be at least 16 bytes');
  }

  digest(token: string): Buffer {
    return createHmac('sha256', this.key).update(token, 'utf8').digest();
  }

  /** The hex form is the key of State.apiTokens and what the WAL stores. */
  hash(token: string): string {
    return this.digest(token).toString('hex');
  }
}

/** Constant-time equality of two digests (different lengths are simply unequal). */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A short public handle for a token (listing, PUT/DELETE by id); it reveals nothing of the secret. */
export function tokenId(hash: string): string {
  return hash.slice(0, 16);
}
