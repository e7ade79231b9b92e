/**
 * The audit log (owner only): who did what and when in the organisation,
 * newest first, a page at a time. Entries hold ids and setting names, never
 * anything a tracker recorded.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate } from '../format.js'
import type { AuditEntry, AuditListAnswer } from '../model.js'

const PAGE = 50

/** How each action reads in the table; the API's own name shows beside it for searching the docs. */
const ACTIONS: Record<AuditEntry['action'], string> = {
  'org.setup': 'Created the organisation',
  'auth.sign_in': 'Signed in',
  'auth.sign_out_everywhere': 'Signed out everywhere',
  'auth.password_change': 'Changed their password',
  'invite.create': 'Created an invite link',
  'invite.revoke': 'Revoked an invite link',
  'invite.accept': 'Joined by an invite link',
  'member.remove': 'Removed a member',
  'member.role': 'Set a member\'s role',
  'key.create': 'Created an API key',
  'key.revoke': 'Revoked an API key',
  'project.create': 'Created a project',
  'project.rename': 'Renamed a project',
  'project.delete': 'Deleted a project and its recordings',
  'project.path_rules': 'Changed path rules',
  'project.capture': 'Changed capture settings',
  'project.retention': 'Changed how long recordings are kept',
  'project.backfill': 'Re-grouped pages',
  'setup_token.mint': 'Minted a setup token',
  'setup_token.revoke': 'Revoked setup tokens',
  'session.replay': 'Opened a replay',
  'session.watch': 'Followed a session live',
  'session.watch_end': 'Stopped following a session live',
  'session.search_user': 'Searched sessions by user or account id',
  'erasure.create': 'Asked for an erasure',
  'erasure.dry_run': 'Counted what an erasure would remove',
}

const VIA: Record<AuditEntry['via'], string> = { dashboard: 'dashboard', apiKey: 'API key', setupToken: 'setup token' }

export function Audit({ orgName }: { orgName: string }) {
  useTitle('Audit log')
  const first = useAsync(() => api.post<AuditListAnswer>('/auth/audit.list', { limit: PAGE }), [])
  const [older, setOlder] = useState<AuditEntry[]>([])
  const [cursor, setCursor] = useState<string | null>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const next = cursor === undefined ? first.data?.nextCursor : cursor
  const entries = [...(first.data?.entries ?? []), ...older]
  const more = async () => {
    if (!next) return
    setBusy(true)
    setError(undefined)
    try {
      const page = await api.post<AuditListAnswer>('/auth/audit.list', { limit: PAGE, cursor: next })
      setOlder((before) => [...before, ...page.entries])
      setCursor(page.nextCursor)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="stack">
      <h1 tabIndex={-1}>Audit log</h1>
      <p class="muted">
        Who did what in <strong>{orgName}</strong>, newest first: sign-ins, members and their roles, API keys, invite links, project settings and who opened which recording. Only you, the owner, can read it; no one can change it. It holds ids, never recorded content.
      </p>
      <ErrorNote error={error ?? first.error} />
      {first.loading && !first.data ? <Loading what="Loading the audit log" /> : null}
      {first.data && entries.length === 0 && <Empty title="Nothing yet" />}
      {entries.length > 0 && (
        <div class="table-wrap">
          <table data-testid="audit">
            <caption class="sr-only">Audit log of {orgName}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col" class="hide-narrow">
                  How, from where
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id} data-action={entry.action}>
                  <td title={formatDate(entry.at)}>{formatAgo(entry.at)}</td>
                  <td>{entry.actorEmail ?? <span class="muted">—</span>}</td>
                  <td>
                    {ACTIONS[entry.action]} <code class="muted small">{entry.action}</code>
                    {entry.detail && <span class="chip">{entry.detail}</span>}
                  </td>
                  <td>
                    <code class="small">{entry.target ?? ''}</code>
                  </td>
                  <td class="hide-narrow muted small">
                    {VIA[entry.via]}
                    {entry.ip ? `, ${entry.ip}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div>
          <button type="button" class="secondary" disabled={busy} onClick={more}>
            {busy ? 'Loading…' : 'Older entries'}
          </button>
        </div>
      )}
    </section>
  )
}
