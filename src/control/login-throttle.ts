/**
 * Sign-in throttling: a budget of attempts per account and per client address
 * in a fixed window. An attempt takes its slot before the password hash is
 * computed, so parallel guesses are counted as they arrive, not as they fail;
 * a success gives its slots back. Only the control worker serves /auth/login
 * (the fronts forward it, src/front/proxy.ts), so this process's memory is
 * the one place every attempt is seen.
 */
import { ApiError } from '../errors.js'

export interface Budget {
  attempts: number
  windowMs: number
}

/** 5 per account in 15 minutes: OWASP's order of magnitude; a guesser gets 480 a day, a forgetful owner waits minutes. */
export const ACCOUNT_BUDGET: Budget = { attempts: 5, windowMs: 15 * 60 * 1000 }
/** Per address: enough for an office behind one NAT, too few to spray many accounts. */
export const ADDRESS_BUDGET: Budget = { attempts: 30, windowMs: 15 * 60 * 1000 }
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

export function createLoginThrottle(now: () => number, budgets = { account: ACCOUNT_BUDGET, address: ADDRESS_BUDGET }) {
  const accounts = new AttemptBudget(budgets.account)
  const addresses = new AttemptBudget(budgets.address)

  return {
    /** Takes an attempt for both the account and the address, or throws 401 with Retry-After. */
    attempt(email: string, address: string): void {
      const at = now()
      const addressWait = addresses.take(address, at)
      const accountWait = addressWait ? 0 : accounts.take(email, at)
      const wait = addressWait || accountWait
      if (!wait) return
      const seconds = Math.ceil(wait / 1000)
      throw new ApiError('unauthorized', {
        error: addressWait ? 'Too many sign-in attempts from this address.' : 'Too many sign-in attempts for this account.',
        hint: `Wait ${seconds} s before trying again (Retry-After), even with the right password.`,
        retryAfterSeconds: seconds,
      })
    },
    /** The password was right: the account starts afresh, the address gets its slot back. */
    succeeded(email: string, address: string): void {
      accounts.giveBack(email, true)
      addresses.giveBack(address, false)
    },
  }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
