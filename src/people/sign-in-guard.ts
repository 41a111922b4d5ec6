// How often one may try to prove who one is. Every attempt counts against the caller's address
// (SIGN_IN_LIMIT_PER_ADDRESS a minute) and, when it names an account, against that account
// (SIGN_IN_LIMIT_PER_ACCOUNT per 15 minutes); an attempt that succeeds gives the account's back,
// so only failures pile up there. Both are counted before any password is hashed, so a refused
// attempt costs no hashing, and whether the account exists changes nothing: the key is the name
// given, known or not. Past a limit: 429 with Retry-After.
import { TooManyRequestsError } from '../errors.js';
import { AttemptLimiter } from './limiter.js';

export interface GuardLimits {
  perAddress: number;
  perAccount: number;
  entries: number;
}

const MINUTE = 60_000;

export class SignInGuard {
  private readonly addresses: AttemptLimiter;
  private readonly accounts: AttemptLimiter;

  constructor(limits: GuardLimits, now: () => number = Date.now) {
    this.addresses = new AttemptLimiter({ count: limits.perAddress, windowMs: MINUTE }, limits.entries, now);
    this.accounts = new AttemptLimiter({ count: limits.perAccount, windowMs: 15 * MINUTE }, limits.entries, now);
  }

  /** Counts an attempt from `address` (at `account`, when it names one); 429 when either is over its limit. */
  attempt(address: string, account?: string): void {
    const fromAddress = this.addresses.take(address);
    if (fromAddress > 0) {
      throw new TooManyRequestsError(`Too many attempts from your address: try again in ${fromAddress} s.`, fromAddress);
    }
    if (account === undefined) return;
    const atAccount = this.accounts.take(accountKey(account));
    if (atAccount > 0) {
      throw new TooManyRequestsError(`Too many failed attempts at this account: try again in ${atAccount} s.`, atAccount);
    }
  }

  /** The account proved itself: its failed attempts are forgotten. */
  succeeded(account: string): void {
    this.accounts.clear(accountKey(account));
  }
}

const accountKey = (account: string) => account.trim().toLowerCase();
