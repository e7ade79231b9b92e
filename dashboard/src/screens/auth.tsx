/** First run (the first organisation and its owner), sign-in, and joining through an invite link. */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, type SignedIn } from '../api.js'
import { ErrorNote, useTitle } from '../components.js'

/** The server refuses shorter ones (src/schemas/accounts.ts). */
const MIN_PASSWORD = 10

type Submit = (form: Record<string, string>) => Promise<SignedIn>

function Form({ title, intro, fields, action, submit, onSignedIn, footer }: {
  title: string
  intro?: string
  fields: { name: string; label: string; type: 'text' | 'email' | 'password'; autocomplete: string; hint?: string; minLength?: number }[]
  action: string
  submit: Submit
  onSignedIn: (answer: SignedIn) => void
  footer?: ComponentChildren
}) {
  useTitle(title)
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const data = Object.fromEntries(new FormData(event.currentTarget as HTMLFormElement)) as Record<string, string>
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await submit(data))
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand-line">svc recorder</p>
        <h1 tabIndex={-1}>{title}</h1>
        {intro && <p class="muted">{intro}</p>}
        <form onSubmit={onSubmit} class="stack">
          {fields.map((f) => (
            <label key={f.name}>
              <span>{f.label}</span>
              {/* Preact's input types are a union keyed by `type`; these three take the same attributes. */}
              <input name={f.name} type={f.type as 'text'} autoComplete={f.autocomplete} required minLength={f.minLength} aria-describedby={f.hint ? `${f.name}-hint` : undefined} />
              {f.hint && (
                <small id={`${f.name}-hint`} class="muted">
                  {f.hint}
                </small>
              )}
            </label>
          ))}
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            {busy ? 'Working…' : action}
          </button>
        </form>
        {footer}
      </div>
    </main>
  )
}

const password = (autocomplete: string) => ({
  type: 'password' as const,
  name: 'password',
  label: 'Password',
  autocomplete,
  minLength: MIN_PASSWORD,
  hint: autocomplete === 'new-password' ? `At least ${MIN_PASSWORD} characters.` : undefined,
})

export function FirstRun({ onSignedIn }: { onSignedIn: (answer: SignedIn) => void }) {
  return (
    <Form
      title="Set up your organisation"
      intro="This deployment has no users yet. Create your organisation and its owner account; afterwards people join by invite link."
      fields={[
        { name: 'orgName', label: 'Organisation name', type: 'text', autocomplete: 'organization' },
        { name: 'email', label: 'Your email', type: 'email', autocomplete: 'email' },
        password('new-password'),
      ]}
      action="Create organisation"
      submit={(form) => api.post<SignedIn>('/auth/setup', form)}
      onSignedIn={onSignedIn}
    />
  )
}

export function SignIn({ onSignedIn }: { onSignedIn: (answer: SignedIn) => void }) {
  return (
    <Form
      title="Sign in"
      fields={[{ name: 'email', label: 'Email', type: 'email', autocomplete: 'username' }, { ...password('current-password'), minLength: undefined }]}
      action="Sign in"
      submit={(form) => api.post<SignedIn>('/auth/login', form)}
      onSignedIn={onSignedIn}
      footer={<p class="muted small">No account? Ask someone in your organisation for an invite link.</p>}
    />
  )
}

export function AcceptInvite({ token, onSignedIn }: { token: string; onSignedIn: (answer: SignedIn) => void }) {
  return (
    <Form
      title="Join your organisation"
      intro="Type your email and choose the password you will sign in with. The link works once: an invite makes you a member, a sign-in link (from npm run admin) sets your own password."
      fields={[{ name: 'email', label: 'Your email', type: 'email', autocomplete: 'email' }, password('new-password')]}
      action="Join"
      submit={(form) => api.post<SignedIn>('/auth/accept-invite', { ...form, token })}
      onSignedIn={onSignedIn}
    />
  )
}
