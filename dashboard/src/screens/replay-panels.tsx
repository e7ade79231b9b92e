/**
 * The replay's console and network panels: the recording's console-plugin and
 * network-plugin events (tracker capture.js) as lines that follow the
 * player's time (lines yet to come are dimmed, the latest one past is
 * marked) and jump there when clicked. Console errors and failed requests
 * (status 0 or >= 500) are also moments on the timeline (`captureMoments`).
 */
import { useMemo, useState } from 'preact/hooks'
import { formatClock } from '../format.js'

export const CONSOLE_PLUGIN = 'rrweb/console@1'
export const NETWORK_PLUGIN = 'svc/network@1'

interface ConsoleLine {
  kind: 'console'
  offset: number
  level: string
  text: string
  trace: string[]
}

interface NetworkLine {
  kind: 'network'
  offset: number
  method: string
  url: string
  status: number
  duration: number
  size?: number
}

/** A console argument as JSON text, shown as devtools would: strings bare, the rest as JSON. */
function argument(text: string): string {
  try {
    const value = JSON.parse(text)
    return typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    return text
  }
}

export const failed = (status: number) => status === 0 || status >= 500

export function captureLines(events: any[], start: number): { console: ConsoleLine[]; network: NetworkLine[] } {
  const console: ConsoleLine[] = []
  const network: NetworkLine[] = []
  for (const e of events) {
    if (e.type !== 6 || !e.data) continue
    const p = e.data.payload ?? {}
    if (e.data.plugin === CONSOLE_PLUGIN) {
      const args: string[] = Array.isArray(p.payload) ? p.payload : []
      console.push({ kind: 'console', offset: e.timestamp - start, level: String(p.level ?? 'log'), text: args.map(argument).join(' '), trace: Array.isArray(p.trace) ? p.trace : [] })
    } else if (e.data.plugin === NETWORK_PLUGIN) {
      // Placed where the request started; the event itself is written when it ended.
      const at = typeof p.at === 'number' ? p.at : e.timestamp
      network.push({ kind: 'network', offset: Math.max(0, at - start), method: String(p.method ?? ''), url: String(p.url ?? ''), status: Number(p.status ?? 0), duration: Number(p.duration ?? 0), size: p.responseSize })
    }
  }
  network.sort((a, b) => a.offset - b.offset)
  return { console, network }
}

/** Console errors and failed requests as timeline moments. */
export function captureMoments(events: any[], start: number) {
  const { console, network } = captureLines(events, start)
  return [
    ...console.filter((l) => l.level === 'error').map((l) => ({ ts: start + l.offset, tag: 'consoleError', kind: 'consoleError', label: l.text.slice(0, 120) })),
    ...network.filter((l) => failed(l.status)).map((l) => ({ ts: start + l.offset, tag: 'requestFailed', kind: 'requestFailed', label: `${l.method} ${l.url} ${l.status || 'failed'}` })),
  ]
}

export function CapturePanels({ events, start, now, jump }: { events: any[]; start: number; now: number; jump: (offset: number) => void }) {
  const lines = useMemo(() => captureLines(events, start), [events, start])
  const [tab, setTab] = useState<'console' | 'network'>(lines.console.length || !lines.network.length ? 'console' : 'network')
  if (!lines.console.length && !lines.network.length) return null
  const shown: (ConsoleLine | NetworkLine)[] = tab === 'console' ? lines.console : lines.network
  let current = -1
  shown.forEach((l, i) => {
    if (l.offset <= now) current = i
  })
  return (
    <section class="capture-panels" aria-label="Console and network" data-testid="capture-panels">
      <div class="row" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'console'} class={tab === 'console' ? 'tab active' : 'tab'} onClick={() => setTab('console')}>
          Console ({lines.console.length})
        </button>
        <button type="button" role="tab" aria-selected={tab === 'network'} class={tab === 'network' ? 'tab active' : 'tab'} onClick={() => setTab('network')}>
          Network ({lines.network.length})
        </button>
      </div>
      <ol class="capture-lines" data-testid={`${tab}-lines`}>
        {shown.map((l, i) => (
          <li key={i} class={`${l.offset > now ? 'future' : ''} ${i === current ? 'current' : ''} ${l.kind === 'console' ? `level-${l.level}` : failed(l.status) ? 'level-error' : ''}`}>
            <button type="button" class="capture-line" onClick={() => jump(l.offset)} title={l.kind === 'console' && l.trace.length ? l.trace.join('\n') : undefined}>
              <span class="time">{formatClock(l.offset)}</span>
              {l.kind === 'console' ? (
                <>
                  <span class="level">{l.level}</span> <code>{l.text}</code>
                </>
              ) : (
                <>
                  <span class="level">{l.status || 'failed'}</span> <code>{l.method} {l.url}</code> <span class="muted small">{l.duration} ms{l.size !== undefined ? ` · ${l.size} B` : ''}</span>
                </>
              )}
            </button>
          </li>
        ))}
      </ol>
    </section>
  )
}
