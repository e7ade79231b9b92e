/**
 * A front's way to the control worker's port when CONTROL_PORT is unset: the
 * control worker listens on a port the kernel gives it (no other process can
 * take a port between its choice and the listen, as a port drawn in advance
 * could be), and the primary tells the fronts which.
 */
import type { ControlPortAnswer, ControlPortRequest } from './messages.js'

export function controlPortOf(configured: number): Promise<number> {
  if (configured) return Promise.resolve(configured)
  const send = process.send?.bind(process)
  if (!send) return Promise.reject(new Error('CONTROL_PORT is unset and no primary process is there to name the control worker’s port'))
  return new Promise((resolve) => {
    const answered = (message: ControlPortAnswer) => {
      if (message?.type !== 'control-port') return
      process.off('message', answered)
      resolve(message.port)
    }
    process.on('message', answered)
    send({ type: 'control-port-request' } satisfies ControlPortRequest)
  })
}
