/**
 * Every failure the CLI reports: a stable code (the server's own `code` for
 * API errors), a message, the hint when there is one, and the exit status
 * (1 failure, 2 usage). main.ts is the only place that prints them.
 */

export interface CliErrorOptions {
  hint?: string
  /** HTTP status, for errors the server answered. */
  status?: number
  exit?: 1 | 2
  /** Extra members shown with --json (the server's `invalid`, say). */
  details?: Record<string, unknown>
}

export class CliError extends Error {
  readonly hint?: string
  readonly status?: number
  readonly exit: 1 | 2
  readonly details?: Record<string, unknown>

  constructor(readonly code: string, message: string, options: CliErrorOptions = {}) {
    super(message)
    this.hint = options.hint
    this.status = options.status
    this.exit = options.exit ?? 1
    this.details = options.details
  }

  toJSON(): Record<string, unknown> {
    return {
      error: this.message,
      code: this.code,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.status ? { status: this.status } : {}),
      ...this.details,
    }
  }
}
