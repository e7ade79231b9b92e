/**
 * The node:http fallback (src/front/fallback.ts) keeps the uWebSockets.js
 * contracts the front relies on, whichever Node runs it: a large answer
 * written under backpressure arrives whole (on Node 22 a corked write never
 * saw 'drain', and such an answer hung), and a body arrives as ArrayBuffers
 * ending with an empty last piece.
 */
import t from 'tap'
import { fallbackUws } from '../../src/front/fallback.js'
import type { HttpResponse, TemplatedApp } from '../../src/front/uws.js'

const uws = fallbackUws({ maxHeaderBytes: 16 * 1024 })

async function serve(t: { teardown(fn: () => unknown): void }, routes: (app: TemplatedApp) => void): Promise<string> {
  const app = uws.App()
  routes(app)
  const socket = await new Promise<unknown>((resolve) => app.listen('127.0.0.1', 0, resolve))
  t.teardown(() => uws.us_listen_socket_close(socket as never))
  return `http://127.0.0.1:${uws.us_socket_local_port(socket as never)}`
}

/** Writes `total` bytes in 64 KiB pieces the way src/front/proxy.ts streams, waiting for onWritable when a write says so. */
async function pump(res: HttpResponse, total: number): Promise<number> {
  const piece = Buffer.alloc(64 * 1024, 0x61)
  let sent = 0
  let waits = 0
  while (sent < total) {
    let drained = true
    res.cork(() => {
      drained = res.write(piece)
    })
    sent += piece.byteLength
    if (!drained) {
      waits += 1
      await new Promise<void>((resolve) => res.onWritable(() => (resolve(), true)))
    }
  }
  res.cork(() => res.end())
  return waits
}

t.test('a 48 MiB answer written under backpressure arrives whole', async (t) => {
  let waits = 0
  const url = await serve(t, (app) =>
    app.get('/big', (res) => {
      res.onAborted(() => undefined)
      res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/octet-stream'))
      void pump(res, 48 * 1024 * 1024).then((n) => (waits = n))
    }),
  )
  const answer = await fetch(`${url}/big`)
  let received = 0
  for await (const piece of answer.body as unknown as AsyncIterable<Uint8Array>) received += piece.byteLength
  t.equal(received, 48 * 1024 * 1024)
  t.ok(waits > 0, `the writer waited for onWritable ${waits} times: backpressure was exercised`)
})

t.test('a request body arrives as ArrayBuffer pieces, the last one empty and flagged', async (t) => {
  const url = await serve(t, (app) =>
    app.post('/echo', (res) => {
      const pieces: Buffer[] = []
      res.onAborted(() => undefined)
      res.onData((chunk, isLast) => {
        t.ok(chunk instanceof ArrayBuffer)
        pieces.push(Buffer.from(chunk.slice(0)))
        if (isLast) res.cork(() => res.writeStatus('200 OK').end(String(Buffer.concat(pieces).byteLength)))
      })
    }),
  )
  const answer = await fetch(`${url}/echo`, { method: 'POST', body: Buffer.alloc(300_000, 1) })
  t.equal(await answer.text(), '300000')
})

t.test('a target new URL() cannot parse is routed like any other, and the server lives on', async (t) => {
  const url = await serve(t, (app) =>
    app.any('/*', (res, req) => {
      res.onAborted(() => undefined)
      res.cork(() => res.writeStatus('200 OK').end(`${req.getUrl()} ${req.getQuery() ?? ''} ${req.getQuery('a') ?? '-'}`))
    }),
  )
  const { port } = new URL(url)
  const { exchange } = await import('../helpers/raw-http.js')
  for (const target of ['//', '//x:y?a=1', '/%zz?a=%']) {
    const answer = await exchange(Number(port), `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)
    t.same(answer.kind === 'answer' && answer.status, 200, target)
  }
  t.equal(await (await fetch(`${url}/p?a=b%20c`)).text(), '/p a=b%20c b c')
})
