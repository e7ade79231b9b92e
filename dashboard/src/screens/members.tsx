/**
 * Members: everyone in the organisation, when they joined, their last
 * sign-in and whose invite they came by. The owner removes members here:
 * their sessions end at once and the API keys they hold are revoked.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate } from '../format.js'
import type { MemberListAnswer, MemberRemoveAnswer, MemberRow } from '../model.js'
import { href } from '../route.js'

type Removed = MemberRemoveAnswer & { email: string }

export function Members({ orgName }: { orgName: string }) {
  useTitle('Members')
  const list = useAsync(() => api.post<MemberListAnswer>('/auth/members.list').then((a) => a.members), [])
  const [error, setError] = useState<unknown>()
  const [removed, setRemoved] = useState<Removed>()
  const members = list.data ?? []
  const ownerIsMe = members.some((m) => m.you && m.role === 'owner')
  const remove = async (member: MemberRow) => {
    setError(undefined)
    try {
      const answer = await api.post<MemberRemoveAnswer>('/auth/members.remove', { userId: member.userId })
      setRemoved({ email: member.email, ...answer })
    } catch (e) {
      setError(e)
    }
    list.reload()
  }
  return (
    <section class="stack">
      <h1 tabIndex={-1}>Members</h1>
      <p>
        Everyone who can sign in to <strong>{orgName}</strong>. {ownerIsMe ? 'As the owner, you can remove a member: their sessions end at once and the API keys they hold are revoked.' : 'Only the owner can remove members.'}{' '}
        <a href={href('people')}>Invite people</a>.
      </p>
      <ErrorNote error={error ?? list.error} />
      {removed && (
        <p class="card" role="status">
          Removed {removed.email}: {removed.sessionsEnded} session{removed.sessionsEnded === 1 ? '' : 's'} ended, {removed.keysRevoked} API key{removed.keysRevoked === 1 ? '' : 's'}, {removed.invitesRevoked} invite link{removed.invitesRevoked === 1 ? '' : 's'} and {removed.setupTokensRevoked} setup token{removed.setupTokensRevoked === 1 ? '' : 's'} revoked.
        </p>
      )}
      {list.loading && !list.data ? <Loading what="Loading the members" /> : null}
      {members.length > 0 && (
        <div class="table-wrap">
          <table data-testid="members">
            <caption class="sr-only">Members of {orgName}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Joined</th>
                <th scope="col" class="hide-narrow">
                  Last sign-in
                </th>
                <th scope="col" class="hide-narrow">
                  Invited by
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <tr key={member.userId} data-user-id={member.userId}>
                  <td>
                    {member.email} {member.role === 'owner' && <span class="chip">Owner</span>} {member.you && <span class="chip muted">You</span>}
                  </td>
                  <td title={formatDate(member.joinedAt)}>{formatAgo(member.joinedAt)}</td>
                  <td class="hide-narrow" title={member.lastSignInAt ? formatDate(member.lastSignInAt) : undefined}>
                    {member.lastSignInAt ? formatAgo(member.lastSignInAt) : <span class="muted">never</span>}
                  </td>
                  <td class="hide-narrow">{member.invitedBy ?? <span class="muted">{member.role === 'owner' ? 'created the organisation' : '—'}</span>}</td>
                  <td class="actions">
                    {ownerIsMe && member.role !== 'owner' && <ConfirmButton label="Remove" confirm={`Remove ${member.email}`} busyLabel="Removing…" onConfirm={() => remove(member)} />}
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
