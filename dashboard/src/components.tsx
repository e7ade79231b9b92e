/** Small shared pieces: data loading, errors, copy buttons, confirmations, empty states. */
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiFailure } from './api.js'

export interface Async<T> {
  data?: T
  error?: unknown
  loading: boolean
  reload: () => void
}

/**
 * Runs `load` when `deps` change; a slower earlier answer never overwrites a
 * newer one. `loading` is true from the render in which the deps changed, not
 * one render later (when the effect starts the load): until the new answer
 * comes, the last one is never shown as if it were for the new deps.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const asked = useMemo(() => ({}), deps)
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; for?: object }>({ loading: true })
  const generation = useRef(0)
  const run = useCallback(() => {
    const mine = ++generation.current
    setState((s) => ({ data: s.data, loading: true, for: s.for }))
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false, for: asked }),
      (error) => mine === generation.current && setState({ error, loading: false, for: asked }),
    )
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [asked])
  useEffect(run, [run])
  const { for: answered, ...rest } = state
  return { ...rest, loading: state.loading || answered !== asked, reload: run }
}

/** Calls `fn` every `ms` while the component is shown and the tab is visible. */
export function useInterval(fn: () => void, ms: number | null): void {
  const saved = useRef(fn)
  saved.current = fn
  useEffect(() => {
    if (ms === null) return
    const id = setInterval(() => document.visibilityState === 'visible' && saved.current(), ms)
    return () => clearInterval(id)
  }, [ms])
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null
  const failure = error instanceof ApiFailure ? error : undefined
  return (
    <div class="note error" role="alert">
      <strong>{failure ? failure.message : String((error as Error)?.message ?? error)}</strong>
      {failure?.hint && <span> {failure.hint}</span>}
      {failure?.invalid?.length ? <span> Invalid: {failure.invalid.join(', ')}</span> : null}
    </div>
  )
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      {what}…
    </p>
  )
}

/** Copies through the async clipboard API, or by selecting a hidden textarea where that is unavailable (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // permission refused: fall through to the selection copy
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.appendChild(area)
  area.select()
  let ok = false
  try {
    ok = document.execCommand('copy')
  } catch {
    ok = false
  }
  area.remove()
  return ok
}

export function CopyButton({ text, label = 'Copy', class: className, onCopied }: { text: string | (() => Promise<string>); label?: string; class?: string; onCopied?: () => void }) {
  const [state, setState] = useState<'idle' | 'busy' | 'copied' | 'failed'>('idle')
  const [error, setError] = useState<unknown>()
  useEffect(() => {
    if (state !== 'copied' && state !== 'failed') return
    const id = setTimeout(() => setState('idle'), 2500)
    return () => clearTimeout(id)
  }, [state])
  const copy = async () => {
    setState('busy')
    setError(undefined)
    try {
      const value = typeof text === 'string' ? text : await text()
      const ok = await copyText(value)
      setState(ok ? 'copied' : 'failed')
      if (ok) onCopied?.()
    } catch (e) {
      setError(e)
      setState('failed')
    }
  }
  return (
    <span class="copy">
      <button type="button" class={className ?? 'secondary'} onClick={copy} disabled={state === 'busy'}>
        {state === 'copied' ? 'Copied' : state === 'busy' ? 'Working…' : label}
      </button>
      <span class="sr-only" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Could not copy; select the text and copy it by hand' : ''}
      </span>
      {error ? <ErrorNote error={error} /> : null}
    </span>
  )
}

/** A destructive button that asks once more in place (no modal dialogs: keyboard and screen readers stay where they are). */
export function ConfirmButton({ label, confirm, onConfirm, busyLabel = 'Working…' }: { label: string; confirm: string; onConfirm: () => Promise<unknown>; busyLabel?: string }) {
  const [step, setStep] = useState<'idle' | 'ask' | 'busy'>('idle')
  const confirmRef = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (step === 'ask') confirmRef.current?.focus()
  }, [step])
  if (step === 'idle') {
    return (
      <button type="button" class="danger-outline" onClick={() => setStep('ask')}>
        {label}
      </button>
    )
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        disabled={step === 'busy'}
        onClick={async () => {
          setStep('busy')
          try {
            await onConfirm()
          } finally {
            setStep('idle')
          }
        }}
      >
        {step === 'busy' ? busyLabel : confirm}
      </button>
      <button type="button" class="link" onClick={() => setStep('idle')} disabled={step === 'busy'}>
        Cancel
      </button>
    </span>
  )
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h3>{title}</h3>
      {children}
    </div>
  )
}

export function Code({ children, label }: { children: string; label: string }) {
  return (
    <pre class="code" tabIndex={0} aria-label={label}>
      <code>{children}</code>
    </pre>
  )
}

/** The document title names the screen (browser history, tabs, screen readers). */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · svc recorder`
  }, [title])
}
