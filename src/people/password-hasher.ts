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
// a flood of sign-ins cannot starve the disk or grow memory.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { TooManyRequestsError } from '../errors.js';

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

export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** A hash of a random password, verified against when there is no real one (see `verify`). */
  private readonly dummy: Promise<string>;

  constructor(private readonly options: HasherOptions) {
    this.dummy = this.hash(randomBytes(24).toString('base64'));
    // Made at start (a sign-in needs it): a failure here is a failure of every sign-in, reported then.
    this.dummy.catch(() => {});
  }

  /** The PHC string of a new hash of `password` with the current parameters. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.turn(() => derive(password, salt, this.options.logN, R, P, KEY_BYTES));
    return `$scrypt$ln=${this.options.logN},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
  }

  /**
   * Whether `password` matches `hash`. With no hash (an unknown account, one without a password,
   * a deactivated one) the password is checked against a dummy hash all the same, so every
   * refusal costs the same time and says nothing about which it was.
   */
  async verify(hash: string | null, password: string): Promise<boolean> {
    const parsed = hash === null ? null : parse(hash);
    const against = parsed ?? parse(await this.dummy)!;
    const key = await this.turn(() => derive(password, against.salt, against.logN, against.r, against.p, against.key.length));
    return parsed !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
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

  private async turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.options.concurrency) {
      if (this.waiting.length >= this.options.queue) {
        throw new TooManyRequestsError('Too many sign-ins are being checked right now; try again in a second.', 1);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter (running stays the same), or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
