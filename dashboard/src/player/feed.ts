/**
 * Reads a sessions.follow answer: newline-delimited JSON, one rrweb event a
 * line. The server's own lines (rrweb custom events tagged `svc.*`: the
 * history sent, heartbeats, the end) go to `onService` and never to rrweb.
 */
import { api } from '../api.js'

export interface FeedHandlers {
  /** Events in their order, as many as one network read brought (a chunk's events land together). */
  onEvents(events: any[]): void
  onService(tag: string, payload: Record<string, unknown>): void
}

const CUSTOM = 5

/** Resolves when the answer ends (the server closed it, or `signal` was aborted); rejects with ApiFailure when refused. */
export async function readFeed(projectId: string, sessionKey: string, handlers: FeedHandlers, signal: AbortSignal): Promise<void> {
  const reader = await api.stream('/cli/sessions.follow', { projectId, sessionKey }, signal)
  const decoder = new TextDecoder()
  let rest = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || signal.aborted) return
      rest += decoder.decode(value, { stream: true })
      const lines = rest.split('\n')
      rest = lines.pop()!
      let events: any[] = []
      for (const line of lines) {
        if (!line) continue
        const event = JSON.parse(line)
        const tag = event?.type === CUSTOM ? event.data?.tag : undefined
        if (typeof tag !== 'string' || !tag.startsWith('svc.')) {
          events.push(event)
          continue
        }
        // The events before a service line come before it: the history is whole when `svc.live` is told.
        if (events.length) handlers.onEvents(events)
        events = []
        handlers.onService(tag, event.data.payload ?? {})
      }
      if (events.length) handlers.onEvents(events)
    }
  } catch (error) {
    if (!signal.aborted) throw error
  } finally {
    reader.cancel().catch(() => undefined)
  }
}
