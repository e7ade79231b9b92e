/**
 * The cluster mode: a watch made on one node reaches the fronts of every
 * node, since the visitor's next chunk may land anywhere. Each control worker
 * publishes the watches its followers make (and their renewals and ends) on
 * `live.watch`, a plain NATS subject outside JetStream, sealed with the log's
 * secret so that no client without it can make trackers send faster; every
 * control worker writes the others' into its own node's board, whose fronts
 * read it as in the embedded mode. A lost message costs one renewal period:
 * a watch expires on its own.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node'
import { randomUUID } from 'node:crypto'
import { log } from '../log.js'
import type { LogSeal } from '../journal/seal.js'
import type { LiveBoard } from './board.js'

export const WATCH_SUBJECT = 'live.watch'

interface WatchMessage {
  node: string
  projectId: string
  sessionKey: string
  watcher: string
  until: number
}

export function relayWatches(nc: NatsConnection, seal: LogSeal, board: LiveBoard): { close(): void } {
  const node = randomUUID()
  board.onWatch = (projectId, sessionKey, watcher, until) => {
    const message: WatchMessage = { node, projectId, sessionKey, watcher, until }
    try {
      nc.publish(WATCH_SUBJECT, seal.seal('live', Buffer.from(JSON.stringify(message))))
    } catch (error) {
      // The connection is down: the renewal 10 s on tries again.
      log.warn('a live watch could not be told to the other nodes', { error: String(error) })
    }
  }
  const subscription: Subscription = nc.subscribe(WATCH_SUBJECT, {
    callback: (error, message) => {
      if (error) return void log.warn('live watches from other nodes stopped', { error: String(error) })
      let watch: WatchMessage
      try {
        watch = JSON.parse(Buffer.from(seal.open('live', message.data)).toString('utf8'))
      } catch {
        return // not sealed with this cluster's secret: nobody's watch
      }
      if (watch.node === node || typeof watch.until !== 'number') return
      // Capped as a local watch is: a sealed message replayed later keeps no tracker fast for long.
      const until = Math.min(watch.until, Date.now() + 60_000)
      const written = until > Date.now() ? board.watch(watch.projectId, watch.sessionKey, watch.watcher, until, true) : board.unwatch(watch.projectId, watch.sessionKey, watch.watcher, true)
      void written.catch(() => {})
    },
  })
  return {
    close: () => {
      board.onWatch = undefined
      subscription.unsubscribe()
    },
  }
}
