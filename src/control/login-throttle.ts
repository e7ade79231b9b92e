/**
 * Sign-in throttling that one attacker cannot turn against an account's owner.
 * Three budgets, each in a fixed window:
 * - per client address, across accounts: a spray of many emails from one place runs dry;
 * - per (account, address) pair: guesses at one account from one place run dry, and only
 *   that place waits; the owner signing in from elsewhere is not refused;
 * - per account, for addresses that never signed in to it: a ceiling on guessing from many
 *   places at once. Past it, only addresses that signed in to the account before may try.
 * An attempt takes its slots before the password hash is computed, so parallel guesses are
 * counted as they arrive, not as they fail; a success gives its slots back. The address is
 * the client's own (the front resolves it behind TRUST_PROXY, src/front/client-address.ts).
 * Only the control worker serves /auth/login (the fronts forward it, src/front/proxy.ts),
 * so this process's memory is the one place every attempt is seen.
 */
import { ApiError } from '../errors.js'
import { log } from '../log.js'
import { metrics } from '../metrics/registry.js'

export interface Budget {
  attempts: number
  windowMs: number
}

/** 5 per account and address in 15 minutes: OWASP's order of magnitude; one place gets 480 guesses a day at an account. */
export const PAIR_BUDGET: Budget = { attempts: 5, windowMs: 15 * 60 * 1000 }
/** Per address: enough for an office behind one NAT, too few to spray many accounts. */
export const ADDRESS_BUDGET: Budget = { attempts: 30, windowMs: 15 * 60 * 1000 }
/**
 * Per account from new places: 100 an hour bounds a botnet to 2,400 guesses a day at one account; one address,
 * held to 20 an hour by its pair budget, never reaches it, and reaching it locks out only places the owner never used.
 */
export const ACCOUNT_CEILING: Budget = { attempts: 100, windowMs: 60 * 60 * 1000 }
/** How long a successful sign-in makes its address a known place for that account. */
export const KNOWN_PLACE_MS = 30 * 24 * 60 * 60 * 1000
/** Known places remembered per account (the most recent). */
const KNOWN_PLACES_PER_ACCOUNT = 16
/** Keys each budget remembers at most (about 100 bytes each). */
const MAX_KEYS = 100_000

interface Window {
  used: number
  endsAt: number
}

/** Counters by key in a Map kept in window order (a new window is re-inserted), so the oldest are forgotten first. */
export class AttemptBudget {
  private readonly windows = new Map<string, Window>()

  constructor(private readonly budget: Budget, private readonly maxKeys = MAX_KEYS) {}

  /** Takes one attempt; resolves to 0, or to the milliseconds until the key may try again. */
  take(key: string, now: number): number {
    let window = this.windows.get(key)
    if (!window || window.endsAt <= now) {
      this.windows.delete(key)
      this.makeRoom(now)
      window = { used: 0, endsAt: now + this.budget.windowMs }
      this.windows.set(key, window)
    }
    if (window.used >= this.budget.attempts) return window.endsAt - now
    window.used += 1
    return 0
  }

  giveBack(key: string, all: boolean): void {
    const window = this.windows.get(key)
    if (!window) return
    if (all || window.used <= 1) this.windows.delete(key)
    else window.used -= 1
  }

  get size(): number {
    return this.windows.size
  }

  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size < this.maxKeys && window.endsAt > now) return
      // Expired, or the oldest when full: a spray of keys can only forget windows that are nearly over.
      this.windows.delete(key)
    }
  }
}

export interface ThrottleBudgets {
  pair: Budget
  address: Budget
  account: Budget
}

export function createLoginThrottle(now: () => number, budgets: ThrottleBudgets = { pair: PAIR_BUDGET, address: ADDRESS_BUDGET, account: ACCOUNT_CEILING }) {
  const pairs = new AttemptBudget(budgets.pair)
  const addresses = new AttemptBudget(budgets.address)
  const accounts = new AttemptBudget(budgets.account)
  /** Per account, the addresses that signed in to it and when; in window order like the budgets, so bounded the same way. */
  const known = new Map<string, Map<string, number>>()

  const pairKey = (email: string, address: string) => `${email}\n${address}`
  const isKnown = (email: string, address: string, at: number) => (known.get(email)?.get(address) ?? -Infinity) > at - KNOWN_PLACE_MS

  /** Keys whose refusal was logged in their current window: one line per window, not one per guess. */
  const logged = new Map<string, number>()

  function refuse(budget: keyof ThrottleBudgets, key: string, wait: number, client: { email: string; address: string }, error: string): never {
    metrics.signInRefused.inc({ budget })
    const at = now()
    const logKey = `${budget}\n${key}`
    if ((logged.get(logKey) ?? 0) <= at) {
      if (logged.size >= MAX_KEYS) logged.clear()
      logged.set(logKey, at + wait)
      log.warn('sign-in throttled', { budget, email: client.email, client: client.address, retryAfterSeconds: Math.ceil(wait / 1000) })
    }
    const seconds = Math.ceil(wait / 1000)
    throw new ApiError('unauthorized', {
      error,
      hint: `Wait ${seconds} s before trying again (Retry-After), even with the right password.`,
      retryAfterSeconds: seconds,
    })
  }

  return {
    /**
     * Takes an attempt from each budget that applies, or throws 401 with Retry-After. Answers whether the address
     * is a known place of the account (it signed in from there in the last 30 days): its password check goes first.
     */
    attempt(email: string, address: string): { knownPlace: boolean } {
      const at = now()
      const client = { email, address }
      const addressWait = addresses.take(address, at)
      if (addressWait) refuse('address', address, addressWait, client, 'Too many sign-in attempts from this address.')
      const pairWait = pairs.take(pairKey(email, address), at)
      if (pairWait) refuse('pair', pairKey(email, address), pairWait, client, 'Too many sign-in attempts for this account from this address.')
      if (isKnown(email, address, at)) return { knownPlace: true }
      const accountWait = accounts.take(email, at)
      if (accountWait) refuse('account', email, accountWait, client, 'Too many sign-in attempts for this account from new places; places it signed in from before may still sign in.')
      return { knownPlace: false }
    },
    /** The password was right: the pair starts afresh, the address gets its slot back, and it becomes a known place. */
    succeeded(email: string, address: string): void {
      const at = now()
      pairs.giveBack(pairKey(email, address), true)
      addresses.giveBack(address, false)
      if (!isKnown(email, address, at)) accounts.giveBack(email, false)
      let places = known.get(email)
      if (places) known.delete(email)
      else places = new Map()
      places.delete(address)
      places.set(address, at)
      if (places.size > KNOWN_PLACES_PER_ACCOUNT) places.delete(places.keys().next().value as string)
      known.set(email, places)
      // The oldest accounts' places go first, as the budgets forget their oldest windows.
      if (known.size > MAX_KEYS) known.delete(known.keys().next().value as string)
    },
  }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
