/**
 * The front's ceiling: a bare uWebSockets.js handler (the same package and
 * binary as the front) that reads the whole body the way src/front/body.ts
 * does (each onData chunk copied into one buffer sized from content-length)
 * and answers {ok:true} with the same headers, and does nothing else. The
 * benchmark runs as many of these processes on one port as the cluster has
 * fronts, so the two are measured the same way.
 *
 * Usage: node dist/bench/bare-uws.js <port>   (prints "ready" when listening)
 */
import { createRequire } from 'node:module'
import type * as Uws from 'uWebSockets.js'

const require = createRequire(import.meta.url)
const uws = require('uWebSockets.js') as typeof Uws
const port = Number(process.argv[2])

uws
  .App()
  .post('/*', (res, req) => {
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    const declared = Number(req.getHeader('content-length')) || 16 * 1024
    let body = new Uint8Array(declared)
    let length = 0
    res.onData((chunk, isLast) => {
      if (length + chunk.byteLength > body.byteLength) {
        const grown = new Uint8Array(Math.max(body.byteLength * 2, length + chunk.byteLength))
        grown.set(body.subarray(0, length))
        body = grown
      }
      body.set(new Uint8Array(chunk), length)
      length += chunk.byteLength
      if (!isLast || aborted) return
      res.cork(() => {
        res
          .writeStatus('200 OK')
          .writeHeader('Access-Control-Allow-Origin', '*')
          .writeHeader('Access-Control-Expose-Headers', 'X-Svc-Encoding, Content-Length')
          .writeHeader('Content-Type', 'application/json')
          .end('{"ok":true}')
      })
    })
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`bare-uws: cannot listen on ${port}`)
      process.exit(1)
    }
    console.log('ready')
  })

process.on('SIGTERM', () => process.exit(0))
