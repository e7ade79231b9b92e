/**
 * Members: everyone in the organisation, their role, when they joined, their
 * last sign-in and whose invite they came by. The owner sets roles and
 * removes members here: a removed member's sessions end at once and the API
 * keys they hold are revoked.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate } from '../format.js'
import type { MemberListAnswer, MemberRemoveAnswer, MemberRoleAnswer, MemberRow } from '../model.js'
import { href } from '../route.js'

type Removed = MemberRemoveAnswer & { email: string }

const ROLE_NAMES: Record<MemberRow['role'], string> = { owner: 'Owner', admin: 'Admin', viewer: 'Viewer' }

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
  const setRole = async (member: MemberRow, role: 'admin' | 'viewer') => {
    setError(undefined)
    try {
      await api.post<MemberRoleAnswer>('/auth/members.role', { userId: member.userId, role })
    } catch (e) {
      setError(e)
    }
    list.reload()
  }
  return (
    <section class="stack">
      <h1 tabIndex={-1}>Members</h1>
      <p>
        Everyone who can sign in to <strong>{orgName}</strong>. An admin changes projects, API keys and invites; a viewer watches replays and heatmaps and changes nothing.{' '}
        {ownerIsMe ? 'As the owner, you set each member\'s role and can remove a member: their sessions end at once and the API keys they hold are revoked.' : 'Only the owner sets roles and removes members.'}{' '}
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
                <th scope="col">Role</th>
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
                  <td>
                    {ownerIsMe && member.role !== 'owner' ? (
                      <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => setRole(member, e.currentTarget.value as 'admin' | 'viewer')}>
                        <option value="admin">Admin</option>
                        <option value="viewer">Viewer</option>
                      </select>
                    ) : (
                      <span class="role">{ROLE_NAMES[member.role]}</span>
                    )}
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
