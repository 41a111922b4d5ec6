// The one random generator of the test suite: seeded, so that a failing run can be repeated
// exactly. Each test file takes its generator from `testRandom()`, which prints the seed;
// FANION_SEED=<seed> (or FUZZ_SEED, its older name) repeats that run.

export type Rng = () => number;

/** mulberry32: tiny, fast, and the same sequence for the same seed on every platform. */
export function prng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fromEnv = process.env.FANION_SEED ?? process.env.FUZZ_SEED;
/** This run's seed: FANION_SEED when set, else a fresh one. */
export const SEED = fromEnv ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31);

let printed = false;
/**
 * The run's generator for one test file (`name` makes files independent of each other's draw
 * count). The seed is printed once per process, as a TAP comment, so a failure can be replayed.
 */
export function testRandom(name: string): Rng {
  if (!printed) {
    printed = true;
    process.stdout.write(`# random seed ${SEED} (repeat with FANION_SEED=${SEED})\n`);
  }
  let h = SEED >>> 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x9e3779b1) >>> 0;
  return prng(h);
}

export const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)];
export const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const chance = (r: Rng, p: number): boolean => r() < p;
