/**
 * Invite people: a one-time link that lets one more person join the
 * organisation; the organisation's links listed with whether each still
 * works, and the unused ones revocable.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, CopyButton, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate } from '../format.js'
import type { InviteAnswer, InviteListAnswer, InviteRow } from '../model.js'

type NewInvite = InviteAnswer

const STATUS: Record<InviteRow['status'], string> = { pending: 'Waiting', used: 'Used', revoked: 'Revoked', expired: 'Expired' }

export function Invites({ orgName }: { orgName: string }) {
  useTitle('Invite people')
  const list = useAsync(() => api.post<InviteListAnswer>('/auth/invites.list').then((a) => a.invites), [])
  // Links are shown only in the answer that created them; the list knows them by id.
  const [links, setLinks] = useState<NewInvite[]>([])
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const create = async () => {
    setBusy(true)
    setError(undefined)
    try {
      const link = await api.post<NewInvite>('/auth/invite')
      setLinks((old) => [link, ...old])
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
    list.reload()
  }
  const revoke = async (inviteId: string) => {
    setError(undefined)
    try {
      await api.post('/auth/invites.revoke', { inviteId })
      setLinks((old) => old.filter((l) => l.inviteId !== inviteId))
    } catch (e) {
      setError(e)
    }
    list.reload()
  }
  const invites = list.data ?? []
  // A new link stays on screen while it still works (once used, revoked or expired, only its row remains).
  const shown = list.data ? links.filter((l) => invites.some((i) => i.inviteId === l.inviteId && i.status === 'pending')) : links
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
      <ErrorNote error={error ?? list.error} />
      {shown.map((link) => (
        <div class="card stack" key={link.inviteUrl} data-testid="invite-link">
          <strong>Copy this link now: it is shown only once.</strong>
          <div class="row wrap">
            <code class="secret">{link.inviteUrl}</code>
            <CopyButton text={link.inviteUrl} label="Copy link" class="primary" />
          </div>
          <small class="muted">Expires {formatDate(link.expiresAt)}.</small>
        </div>
      ))}
      {list.loading && !list.data ? <Loading what="Loading the invites" /> : null}
      {invites.length > 0 && <h2>Links</h2>}
      {invites.length > 0 && (
        <div class="table-wrap">
          <table data-testid="invites">
            <caption class="sr-only">Invite links of {orgName}</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col" class="hide-narrow">
                  By
                </th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invites.map((invite) => (
                <tr key={invite.inviteId} data-invite-id={invite.inviteId}>
                  <td title={formatDate(invite.createdAt)}>{formatAgo(invite.createdAt)}</td>
                  <td class="hide-narrow">{invite.invitedBy ?? <span class="muted">a removed user</span>}</td>
                  <td>
                    <span class={`chip ${invite.status === 'pending' ? '' : 'muted'}`}>{STATUS[invite.status]}</span>{' '}
                    <small class="muted">{statusDetail(invite)}</small>
                  </td>
                  <td class="actions">
                    {invite.status === 'pending' && <ConfirmButton label="Revoke" confirm="Revoke this link" onConfirm={() => revoke(invite.inviteId)} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function statusDetail(invite: InviteRow): string {
  if (invite.usedAt) return formatAgo(invite.usedAt)
  if (invite.revokedAt) return formatAgo(invite.revokedAt)
  return invite.status === 'expired' ? formatDate(invite.expiresAt) : `until ${formatDate(invite.expiresAt)}`
}
