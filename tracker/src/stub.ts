/**
 * The loader stub: the few hundred bytes a site pastes (src/install/snippet.ts wraps
 * it in a script tag). It defines `svc(command, ...args)`, which queues each
 * call's `arguments` on `svc.q` until the tracker loads, and injects
 * tracker.js only after the visitor's first pointerdown, keydown, touchstart,
 * scroll or mousemove, or when the browser is idle after `load`
 * (requestIdleCallback with a 4000 ms timeout; a 4000 ms timer without it).
 * The key is `data-svc-key` on its script tag or `?key=` on its address; the
 * tracker's address is `data-svc-src`, or its own address with stub.js
 * replaced by tracker.js.
 */
;(function (w: any, d: Document) {
  try {
    if (w.svc) return // pasted twice: the first one wins
    const s: any = (w.svc = function () {
      s.q.push(arguments)
    })
    s.q = []
    const me = d.currentScript as HTMLScriptElement | null
    if (!me) return
    const src = me.src
    const key = me.getAttribute('data-svc-key') || (src.match(/[?&]key=([^&#]+)/) || [])[1]
    const url = me.getAttribute('data-svc-src') || src.replace(/stub\.js([?#].*)?$/, 'tracker.js')
    if (!key || !url) return
    const events = ['pointerdown', 'keydown', 'touchstart', 'scroll', 'mousemove']
    let loaded = 0
    const load = () => {
      if (loaded) return
      loaded = 1
      const t = d.createElement('script')
      t.async = true
      t.src = url
      t.setAttribute('data-svc-key', key)
      // A nonce-based CSP allows the injected script only with the stub's own nonce.
      if (me.nonce) t.nonce = me.nonce
      ;(d.head || d.documentElement).appendChild(t)
    }
    // The tracker records only once the visitor has interacted, and learns from `svc.i` whether that already
    // happened: so the stub keeps listening after an idle-time load, until tracker.js has run and taken over.
    const onInteraction = () => {
      s.i = 1
      events.forEach((e) => w.removeEventListener(e, onInteraction, true))
      load()
    }
    events.forEach((e) => w.addEventListener(e, onInteraction, { capture: true, passive: true }))
    // Pasted before <body>, the stub sees every element's scroll: the snapshot reads positions of those alone.
    if (!d.body) {
      const scrolled = (s.s = new WeakSet())
      w.addEventListener('scroll', (e: Event) => e.target && scrolled.add(e.target), { capture: true, passive: true })
    }
    const idle = () => (w.requestIdleCallback ? w.requestIdleCallback(() => load(), { timeout: 4000 }) : setTimeout(() => load(), 4000))
    if (d.readyState === 'complete') idle()
    else w.addEventListener('load', idle)
  } catch (e) {
    // never break the page that pasted the snippet
  }
})(window, document)
