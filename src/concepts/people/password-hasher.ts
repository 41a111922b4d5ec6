// Password hashes: scrypt (node:crypto), a memory-hard function, so guessing a stolen hash costs
// memory as well as time and GPUs gain little. Parameters: N = 2^15, r = 8, p = 3 by default, one
// of OWASP's recommended equivalent settings (the same work as N = 2^17, p = 1) at 32 MiB per hash
// instead of 128, so two hashes at once stay small on a small server. They are written into each
// hash (PHC string form), so raising them later leaves old hashes readable; a sign-in rehashes a
// password whose hash has weaker ones.
//
// crypto.scrypt runs on libuv's thread pool, off the event loop, but that pool (4 threads) also
// serves file writes, the WAL's included. So at most `concurrency` hashes run at once and at most
// `queue` more wait; past that a caller is refused at once (429) instead of queueing without end:
// a flood of sign-ins cannot starve the disk or grow memory. Except for one place per caller
// (`owner`, the address): a caller with nothing of its own being checked or waiting may always wait,
// so someone signing in from their own address waits their turn behind a flood from many others
// instead of being refused by it. What waits is then bounded by the shared queue plus one per
// address, and each address by its own sign-in limit.
//
// A check costs the same whoever it is for. Each one derives a key at every set of parameters a
// stored hash still uses, and at the current one: against the person's own hash at its parameters,
// against throwaway salts at the others. An unknown account, a deactivated one, one without a
// password and one whose hash predates a raised PASSWORD_SCRYPT_LOG_N so take the same time; the
// price, while old hashes remain, is the sum of their costs on every check (each hash is redone at
// the current parameters the next time its person signs in).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { TooManyRequestsError } from '../../core/errors.js';

export interface HasherOptions {
  /** log2 of scrypt's N (cost in memory and time). */
  logN: number;
  /** Hashes computed at once. */
  concurrency: number;
  /** Hashes waiting for a turn, at most. */
  queue: number;
}

const R = 8;
const P = 3;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Parsed {
  logN: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parse(hash: string): Parsed | null {
  const m = PHC.exec(hash);
  if (!m) return null;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 1 || logN > 24 || r < 1 || p < 1) return null;
  return { logN, r, p, salt: Buffer.from(m[4], 'base64'), key: Buffer.from(m[5], 'base64') };
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The parameters part of a PHC string (`ln=15,r=8,p=3`), or null for anything else: cheap, for scanning every stored hash. */
export function parametersOf(hash: string): string | null {
  const start = hash.startsWith('$scrypt$') ? 8 : -1;
  const end = start < 0 ? -1 : hash.indexOf('$', start);
  return end < 0 ? null : hash.slice(start, end);
}

const PARAMS = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})$/;

export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Attempts running or waiting per owner (an address). */
  private readonly owners = new Map<string, number>();
  /** A throwaway salt and key length per set of parameters, to derive at when checking against another set. */
  private readonly dummies = new Map<string, Parsed>();

  constructor(private readonly options: HasherOptions) {}

  /** The PHC string of a new hash of `password` with the current parameters. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.turn(() => derive(password, salt, this.options.logN, R, P, KEY_BYTES));
    return `$scrypt$ln=${this.options.logN},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
  }

  /**
   * Whether `password` matches `hash`. With no hash (an unknown account, one without a password,
   * a deactivated one) or an unreadable one, the answer is false after the same work: a key derived
   * at the current parameters and at each of `inUse` (the parameters of every stored hash, see
   * `parametersOf`), one of them against `hash` when there is one. `owner` is who asks (see `turn`).
   */
  async verify(hash: string | null, password: string, opts: { inUse?: Iterable<string | null>; owner?: string } = {}): Promise<boolean> {
    const parsed = hash === null ? null : parse(hash);
    const against = new Map<string, Parsed>();
    const current = `ln=${this.options.logN},r=${R},p=${P}`;
    for (const params of [current, ...(opts.inUse ?? [])]) {
      const dummy = params === null ? undefined : this.dummy(params);
      if (dummy) against.set(params!, dummy);
    }
    if (parsed) against.set(`ln=${parsed.logN},r=${parsed.r},p=${parsed.p}`, parsed);
    // The same order whichever is the real one: cheapest first.
    const order = [...against.values()].sort((a, b) => a.logN - b.logN || a.r - b.r || a.p - b.p);
    return this.turn(async () => {
      let match = false;
      for (const a of order) {
        const key = await derive(password, a.salt, a.logN, a.r, a.p, a.key.length);
        if (a === parsed) match = key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
      }
      return match;
    }, opts.owner);
  }

  /** Whether `hash` was made with weaker parameters than the current ones (rehash it at the next sign-in). */
  weaker(hash: string): boolean {
    const parsed = parse(hash);
    return parsed === null || parsed.logN < this.options.logN || parsed.r < R || parsed.p < P;
  }

  /** Hashes running and waiting now (for tests and metrics). */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private dummy(params: string): Parsed | undefined {
    let d = this.dummies.get(params);
    if (d) return d;
    const m = PARAMS.exec(params);
    if (!m) return undefined;
    const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (logN < 1 || logN > 24 || r < 1 || p < 1) return undefined;
    d = { logN, r, p, salt: randomBytes(SALT_BYTES), key: Buffer.alloc(KEY_BYTES) };
    this.dummies.set(params, d);
    return d;
  }

  /**
   * Runs `work` when a slot is free. Past `concurrency` running and `queue` waiting it is refused
   * (429), unless `owner` has nothing running or waiting: then it waits all the same.
   */
  private async turn<T>(work: () => Promise<T>, owner?: string): Promise<T> {
    const mine = owner === undefined ? 0 : this.owners.get(owner) ?? 0;
    if (this.running >= this.options.concurrency) {
      if (this.waiting.length >= this.options.queue && (owner === undefined || mine > 0)) {
        throw new TooManyRequestsError('Too many sign-ins are being checked right now; try again in a second.', 1);
      }
      if (owner !== undefined) this.owners.set(owner, mine + 1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      if (owner !== undefined) this.owners.set(owner, mine + 1);
      this.running++;
    }
    try {
      return await work();
    } finally {
      if (owner !== undefined) {
        const left = this.owners.get(owner)! - 1;
        if (left === 0) this.owners.delete(owner);
        else this.owners.set(owner, left);
      }
      // The slot passes straight to the next waiter (running stays the same), or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
