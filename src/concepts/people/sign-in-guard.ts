// How often one may try to prove who one is. Every attempt counts against the caller's address
// (SIGN_IN_LIMIT_PER_ADDRESS a minute) and, when it names an account, against that account
// (SIGN_IN_LIMIT_PER_ACCOUNT per 15 minutes); an attempt that succeeds gives the account's back,
// so only failures pile up there. Both are counted before any password is hashed, so a refused
// attempt costs no hashing. Past a limit: 429 with Retry-After.
//
// The three kinds of key are kept apart, because they are not equally cheap to make up:
// - a person's failures are counted per person (by id), whichever of their email or username the
//   attempt gives, and never forgotten to make room: there are as many as there are people, so no
//   amount of traffic at other names can make a locked account guessable again;
// - a name that is no person's gets a bucket of its own that behaves the same (five failures, then
//   429), so the limit says nothing about who exists; anyone can make up such names, so at most
//   `entries` are remembered, the longest untouched forgotten first;
// - addresses likewise, at most `entries`, apart from the names, so neither kind crowds out the other.
import { TooManyRequestsError } from '../../core/errors.js';
import { AttemptLimiter } from './limiter.js';

export interface GuardLimits {
  perAddress: number;
  perAccount: number;
  entries: number;
}

/** What an attempt names: a person (by id), or a name that is nobody's. */
export type SignInTarget = { person: number } | { name: string };

const MINUTE = 60_000;

export class SignInGuard {
  private readonly addresses: AttemptLimiter;
  private readonly people: AttemptLimiter;
  private readonly names: AttemptLimiter;

  constructor(limits: GuardLimits, now: () => number = Date.now) {
    const perAccount = { count: limits.perAccount, windowMs: 15 * MINUTE };
    this.addresses = new AttemptLimiter({ count: limits.perAddress, windowMs: MINUTE }, limits.entries, now);
    this.people = new AttemptLimiter(perAccount, Infinity, now);
    this.names = new AttemptLimiter(perAccount, limits.entries, now);
  }

  /** Counts an attempt from `address` (at `target`, when it names an account); 429 when either is over its limit. */
  attempt(address: string, target?: SignInTarget): void {
    const fromAddress = this.addresses.take(address);
    if (fromAddress > 0) {
      throw new TooManyRequestsError(`Too many attempts from your address: try again in ${fromAddress} s.`, fromAddress);
    }
    if (target === undefined) return;
    const atAccount = 'person' in target ? this.people.take(String(target.person)) : this.names.take(target.name.trim().toLowerCase());
    if (atAccount > 0) {
      throw new TooManyRequestsError(`Too many failed attempts at this account: try again in ${atAccount} s.`, atAccount);
    }
  }

  /** The person proved who they are: their failed attempts are forgotten. */
  succeeded(person: number): void {
    this.people.clear(String(person));
  }

  /** Keys remembered, per kind (for tests and metrics). */
  sizes(): { addresses: number; people: number; names: number } {
    return { addresses: this.addresses.size, people: this.people.size, names: this.names.size };
  }
}
