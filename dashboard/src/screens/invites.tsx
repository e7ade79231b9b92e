/** Invite people: a one-time link that lets one more person join the organisation. */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { CopyButton, ErrorNote, useTitle } from '../components.js'
import { formatDate } from '../format.js'

export function Invites({ orgName }: { orgName: string }) {
  useTitle('Invite people')
  const [links, setLinks] = useState<{ inviteUrl: string; expiresAt: number }[]>([])
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const create = async () => {
    setBusy(true)
    setError(undefined)
    try {
      const link = await api.post<{ inviteUrl: string; expiresAt: number }>('/auth/invite')
      setLinks((old) => [link, ...old])
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="stack">
      <h1 tabIndex={-1}>Invite people</h1>
      <p>
        An invite link lets one person join <strong>{orgName}</strong> with their own email and password. Each link works once and expires after 7 days. Send it over a channel you trust: whoever opens it first joins.
      </p>
      <div>
        <button type="button" onClick={create} disabled={busy}>
          {busy ? 'Creating…' : 'Create invite link'}
        </button>
      </div>
      <ErrorNote error={error} />
      {links.map((link) => (
        <div class="card stack" key={link.inviteUrl} data-testid="invite-link">
          <div class="row wrap">
            <code class="secret">{link.inviteUrl}</code>
            <CopyButton text={link.inviteUrl} label="Copy link" class="primary" />
          </div>
          <small class="muted">Expires {formatDate(link.expiresAt)}.</small>
        </div>
      ))}
    </section>
  )
}
