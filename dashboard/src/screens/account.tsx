/** Your account: change your password (your other sessions end), or sign out everywhere (a lost laptop, a shared computer). */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import type { SessionsEndedAnswer } from '../model.js'
import { ConfirmButton, ErrorNote, useTitle } from '../components.js'

/** The server refuses shorter ones (src/schemas/members.ts). */
const MIN_PASSWORD = 10

export function Account({ email, onSignedOutEverywhere }: { email: string; onSignedOutEverywhere: () => Promise<void> }) {
  useTitle('Account')
  const [error, setError] = useState<unknown>()
  const [done, setDone] = useState<string>()
  const [busy, setBusy] = useState(false)
  const change = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const { currentPassword, newPassword } = Object.fromEntries(new FormData(form)) as Record<string, string>
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      const answer = await api.post<SessionsEndedAnswer>('/auth/password.change', { currentPassword, newPassword })
      form.reset()
      setDone(`Password changed. ${answer.sessionsEnded === 1 ? '1 other session was' : `${answer.sessionsEnded} other sessions were`} signed out.`)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const everywhere = async () => {
    setError(undefined)
    try {
      await api.post('/auth/sessions.end')
    } catch (e) {
      return setError(e)
    }
    await onSignedOutEverywhere()
  }
  return (
    <section class="stack">
      <h1 tabIndex={-1}>Account</h1>
      <p>
        Signed in as <strong>{email}</strong>.
      </p>
      <h2>Change password</h2>
      <form class="stack narrow" onSubmit={change}>
        <input type="text" name="username" autoComplete="username" value={email} hidden readOnly />
        <label>
          <span>Current password</span>
          <input name="currentPassword" type="password" autoComplete="current-password" required />
        </label>
        <label>
          <span>New password</span>
          <input name="newPassword" type="password" autoComplete="new-password" required minLength={MIN_PASSWORD} aria-describedby="new-password-hint" />
          <small id="new-password-hint" class="muted">
            At least {MIN_PASSWORD} characters. Your other sessions are signed out; this one stays.
          </small>
        </label>
        <ErrorNote error={error} />
        {done && <p role="status">{done}</p>}
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
      <h2>Sign out everywhere</h2>
      <p>Ends every session of your account, in every browser, this one included.</p>
      <div>
        <ConfirmButton label="Sign out everywhere" confirm="Sign out of every browser" busyLabel="Signing out…" onConfirm={everywhere} />
      </div>
    </section>
  )
}
