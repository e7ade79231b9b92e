/** API keys of the organisation: create (the secret is shown once), list masked with last use, revoke. */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ConfirmButton, CopyButton, Empty, ErrorNote, Loading, useAsync, useTitle } from '../components.js'
import { formatAgo, formatDate } from '../format.js'
import type { ApiKeyRow, KeyCreatedAnswer, KeyListAnswer } from '../model.js'
import { useCan } from '../roles.js'

type Created = KeyCreatedAnswer

export function Keys() {
  useTitle('API keys')
  const list = useAsync(() => api.post<KeyListAnswer>('/cli/keys.list').then((a) => a.keys), [])
  const [label, setLabel] = useState('')
  const [created, setCreated] = useState<Created>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const create = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      setCreated(await api.post<Created>('/cli/keys.create', label.trim() ? { label: label.trim() } : {}))
      setLabel('')
      list.reload()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const revoke = async (keyId: string) => {
    setError(undefined)
    try {
      await api.post('/cli/keys.revoke', { keyId })
      if (created?.keyId === keyId) setCreated(undefined)
    } catch (e) {
      setError(e)
    }
    list.reload()
  }
  const keys = list.data ?? []
  const canCreate = useCan('admin')
  return (
    <section class="stack">
      <h1 tabIndex={-1}>API keys</h1>
      <p class="muted">
        An API key reaches every project of the organisation: the CLI (<code>svc login</code>), scripts and CI use it. It is a secret; revoked keys are refused on their very next request.
      </p>
      {!canCreate && <p class="note">As a viewer you create no API keys, and see only your own.</p>}
      {canCreate && (
      <form class="card row wrap" onSubmit={create} aria-label="Create an API key">
        <label class="grow">
          <span>Label</span>
          <input name="label" maxLength={100} placeholder="laptop, CI, export script" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy} class="align-end">
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
      )}
      {created && (
        <div class="note success stack" role="status" data-testid="new-key">
          <strong>Copy this key now: it is shown only once.</strong>
          <div class="row wrap">
            <code class="secret" data-testid="new-key-value">
              {created.apiKey}
            </code>
            <CopyButton text={created.apiKey} label="Copy key" class="primary" />
          </div>
          <small class="muted">
            Use it with <code>svc login</code>, or as <code>Authorization: Bearer …</code>.
          </small>
          <div>
            <button type="button" class="link" onClick={() => setCreated(undefined)}>
              I have stored it, hide it
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error ?? list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && keys.length === 0 && (
        <Empty title="No API keys">
          <p>Create one above to use the CLI or the API from scripts. The dashboard itself needs none.</p>
        </Empty>
      )}
      {keys.length > 0 && (
        <div class="table-wrap">
          <table data-testid="keys">
            <caption class="sr-only">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col" class="hide-narrow">
                  Created
                </th>
                <th scope="col" class="hide-narrow">
                  Last used
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.keyId} data-key-id={k.keyId}>
                  <th scope="row">
                    {k.label ?? <span class="muted">unlabelled</span>}
                    <small class="muted show-narrow">{k.lastUsedAt ? `used ${formatAgo(k.lastUsedAt)}` : 'never used'}</small>
                  </th>
                  <td>
                    <code class="clip">{k.masked}</code>
                  </td>
                  <td class="hide-narrow">{formatDate(k.createdAt)}</td>
                  <td class="hide-narrow" title={k.lastUsedAt ? formatDate(k.lastUsedAt) : undefined}>
                    {formatAgo(k.lastUsedAt)}
                  </td>
                  <td class="actions">
                    {/* A member revokes only their own keys; the owner any (the service refuses the rest). */}
                    {k.revocable && <ConfirmButton label="Revoke" confirm={`Revoke ${k.label ?? 'key'}`} onConfirm={() => revoke(k.keyId)} />}
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
