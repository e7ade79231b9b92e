/**
 * A seek rebuilds the page (or applies the changes up to the moment through
 * rrweb's virtual DOM), so every CSS animation of an element made then starts
 * over, and rrweb pauses all of them while the player is paused: a toast that
 * slid in with `animation-fill-mode: forwards` sits at its first frame,
 * invisible, at the moment after it appeared. On each pause, an animation
 * that has not advanced at all since it was made (what a seek leaves) and
 * that ends is moved to its end; one that played stays where it is, and one
 * that never ends (a spinner) too. An animation that was still running at the
 * moment is shown as it ends rather than as it begins.
 */

/** Moves the animations a seek restarted in `frame`'s document to their end. */
export function settleAnimations(frame: HTMLIFrameElement): void {
  const doc = frame.contentDocument
  if (!doc || typeof doc.getAnimations !== 'function') return
  for (const animation of doc.getAnimations()) {
    const end = animation.effect?.getComputedTiming().endTime
    if (typeof end !== 'number' || !Number.isFinite(end) || Number(animation.currentTime ?? 0) > 0) continue
    try {
      animation.finish()
    } catch {
      // an animation that cannot finish (a zero playback rate): left as it is
    }
  }
}

/** Settles the frame after each pause of `replayer` (rrweb's Replayer, or the one inside rrweb-player). */
export function settleOnPause(replayer: { on(event: string, handler: () => void): unknown; iframe: HTMLIFrameElement }): void {
  const View = replayer.iframe.ownerDocument.defaultView
  replayer.on('pause', () => View?.requestAnimationFrame(() => settleAnimations(replayer.iframe)))
}
