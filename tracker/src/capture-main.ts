/**
 * capture.js: console, network and canvas capture, loaded on demand by
 * tracker.js only for projects that turn one on (tracker.js must stay within
 * its 30 KB gzip budget, and most projects leave all three off). It finds what
 * tracker.js prepared on `svc.x` (capture-host.ts) and starts what the
 * settings ask for.
 */
import { captureCanvas } from './canvas.js'
import type { CaptureHost } from './capture-host.js'
import { captureConsole } from './console.js'
import type { Off } from './guard.js'
import { captureNetwork } from './network.js'

try {
  const host = ((window as unknown as { svc?: { x?: CaptureHost } }).svc || {}).x
  if (host && !host.stop) {
    const offs: Off[] = []
    if (host.settings.console) offs.push(captureConsole(host))
    if (host.settings.network) offs.push(captureNetwork(host))
    if (host.settings.canvas) offs.push(captureCanvas(host))
    host.stop = () => offs.forEach((off) => host.guard.run(off))
  }
} catch {
  // Nothing the tracker does may break the page, its start included.
}
