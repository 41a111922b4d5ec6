// MurmurHash3, x86 32-bit, as the official Node SDK hashes stickiness ids (its murmurhash3js
// takes the low byte of each UTF-16 code unit; for ASCII ids that is the same as hashing UTF-8).
// Rollout buckets and variant choices must match the SDK's exactly, so this follows it.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** The unsigned 32-bit hash of `key` with `seed`. */
export function murmur3(key: string, seed: number): number {
  const length = key.length;
  const tail = length & 3;
  const body = length - tail;
  let h = seed | 0;
  let i = 0;
  for (; i < body; i += 4) {
    const k = (key.charCodeAt(i) & 0xff) | ((key.charCodeAt(i + 1) & 0xff) << 8) | ((key.charCodeAt(i + 2) & 0xff) << 16) | ((key.charCodeAt(i + 3) & 0xff) << 24);
    h ^= mixK(k);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  if (tail === 3) k ^= (key.charCodeAt(i + 2) & 0xff) << 16;
  if (tail >= 2) k ^= (key.charCodeAt(i + 1) & 0xff) << 8;
  if (tail >= 1) {
    k ^= key.charCodeAt(i) & 0xff;
    h ^= mixK(k);
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const STRATEGY_SEED = 0;
const VARIANT_SEED = 86028157;

/** 1..100: the bucket of `id` in a rollout of `groupId`. */
export function strategyBucket(id: string, groupId: string): number {
  return (murmur3(`${groupId}:${id}`, STRATEGY_SEED) % 100) + 1;
}

/** 1..total: where `id` falls among variants of total weight `total`. */
export function variantBucket(id: string, groupId: string, total: number): number {
  return (murmur3(`${groupId}:${id}`, VARIANT_SEED) % total) + 1;
}
