/**
 * The controls of a streamed replay: play or pause, the position over the
 * whole session (not over the part in memory), and the speed. Seeking past
 * the part in memory loads the part that holds the target.
 */
import { useState } from 'preact/hooks'
import { formatClock } from '../format.js'
import type { StreamHandle } from '../player/stream.js'

const SPEEDS = [1, 2, 4, 8]

export function StreamControls({ player, duration, now }: { player?: StreamHandle; duration: number; now: number }) {
  const [speed, setSpeed] = useState(1)
  // The player's state is read again on every tick of `now`, so a part that ends on its own shows as paused.
  const [, redraw] = useState(0)
  const playing = player?.playing() ?? false
  return (
    <div class="stream-controls row" data-testid="stream-controls">
      <button
        type="button"
        class="button"
        disabled={!player}
        onClick={() => {
          player?.toggle()
          redraw((n) => n + 1)
        }}
      >
        {playing ? 'Pause' : 'Play'}
      </button>
      <input
        type="range"
        class="grow"
        min={0}
        max={duration}
        step={1000}
        value={Math.min(duration, now)}
        disabled={!player}
        aria-label="Position in the recording"
        onChange={(e) => player?.goto(Number((e.target as HTMLInputElement).value), playing)}
      />
      <span class="muted small time" data-testid="stream-time">
        {formatClock(now)} / {formatClock(duration)}
      </span>
      <select
        aria-label="Speed"
        value={speed}
        disabled={!player}
        onChange={(e) => {
          const value = Number((e.target as HTMLSelectElement).value)
          setSpeed(value)
          player?.setSpeed(value)
        }}
      >
        {SPEEDS.map((s) => (
          <option key={s} value={s}>
            {s}×
          </option>
        ))}
      </select>
    </div>
  )
}
