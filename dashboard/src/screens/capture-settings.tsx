/**
 * A project's capture settings on its Settings screen: which sessions are
 * recorded (sampling, minimum duration, URL triggers and exclusions) and
 * whether console, network and canvas capture are on (off by default), with
 * canvas frames' rate and quality.
 */
import { useState } from 'preact/hooks'
import { api } from '../api.js'
import { ErrorNote } from '../components.js'
import type { CaptureSettings } from '../../../src/schemas/types.js'
import { loadProjects, type Project } from '../model.js'
import { splitLines } from './rules-editor.js'

const DEFAULTS: CaptureSettings = { sampleRate: 1, minDurationMs: 0, triggerUrls: [], excludeUrls: [], console: false, network: false, networkQuery: false, canvas: false, canvasFps: 2, canvasQuality: 0.6, frameParents: [] }

export function CaptureForm({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const initial = { ...DEFAULTS, ...project.capture }
  const [percent, setPercent] = useState(String(Math.round(initial.sampleRate * 1000) / 10))
  const [seconds, setSeconds] = useState(String(initial.minDurationMs / 1000))
  const [triggers, setTriggers] = useState(initial.triggerUrls.join('\n'))
  const [excludes, setExcludes] = useState(initial.excludeUrls.join('\n'))
  const [flags, setFlags] = useState({ console: initial.console, network: initial.network, networkQuery: initial.networkQuery, canvas: initial.canvas })
  const [fps, setFps] = useState(String(initial.canvasFps))
  const [quality, setQuality] = useState(String(initial.canvasQuality))
  const [parents, setParents] = useState(initial.frameParents.join('\n'))
  const [error, setError] = useState<unknown>()
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setSaved(false)
    try {
      const capture = {
        sampleRate: Math.min(1, Math.max(0, Number(percent) / 100)),
        minDurationMs: Math.max(0, Math.round(Number(seconds) * 1000)),
        triggerUrls: splitLines(triggers),
        excludeUrls: splitLines(excludes),
        ...flags,
        // Sent as typed: the server refuses what is out of bounds, and the form shows its answer.
        canvasFps: Number(fps),
        canvasQuality: Number(quality),
        frameParents: splitLines(parents),
      }
      await api.post('/cli/projects.capture', { projectId: project.id, capture })
      await loadProjects(true)
      setSaved(true)
      onSaved()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const toggle = (name: keyof typeof flags, label: string) => (
    <label class="check">
      <input type="checkbox" name={name} checked={flags[name]} onChange={(e) => setFlags({ ...flags, [name]: (e.currentTarget as HTMLInputElement).checked })} /> {label}
    </label>
  )
  return (
    <form class="card stack" onSubmit={save} aria-labelledby="capture-title" data-testid="capture-settings">
      <h2 id="capture-title">Recording</h2>
      <p class="muted">Which sessions are recorded, and what beside the page. Unrecorded sessions still count in heatmaps and the element leaderboard. Installed trackers pick changes up within 5 minutes.</p>
      <label>
        Sessions recorded (%) <input type="number" min="0" max="100" step="0.1" value={percent} onInput={(e) => setPercent((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Minimum session length (seconds) <input type="number" min="0" max="3600" value={seconds} onInput={(e) => setSeconds((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Record only from pages matching (one path pattern a line; empty: every page)
        <textarea rows={3} value={triggers} onInput={(e) => setTriggers((e.currentTarget as HTMLTextAreaElement).value)} placeholder="/checkout/*" />
      </label>
      <label>
        Never record pages matching
        <textarea rows={3} value={excludes} onInput={(e) => setExcludes((e.currentTarget as HTMLTextAreaElement).value)} placeholder="/account/*" />
      </label>
      {toggle('console', 'Record console messages and uncaught errors')}
      {toggle('network', 'Record network requests (never headers or bodies)')}
      {toggle('networkQuery', 'Keep query strings of recorded requests (masked values are still starred)')}
      {toggle('canvas', 'Record canvas content (charts, drawings) as sampled images: more bytes per minute; never inside masked or blocked elements')}
      {flags.canvas && (
        <div class="row">
          <label>
            Canvas frames a second (0.1 to 10) <input type="number" name="canvasFps" min="0.1" max="10" step="0.1" value={fps} onInput={(e) => setFps((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <label>
            Canvas image quality (0 to 1) <input type="number" name="canvasQuality" min="0" max="1" step="0.05" value={quality} onInput={(e) => setQuality((e.currentTarget as HTMLInputElement).value)} />
          </label>
        </div>
      )}
      <label>
        Pages of other origins that may show this site's frames in place (one origin a line, as https://shop.example; where the tracker runs in both, the frame records into the page's recording)
        <textarea rows={2} name="frameParents" value={parents} onInput={(e) => setParents((e.currentTarget as HTMLTextAreaElement).value)} placeholder="https://shop.example" />
      </label>
      <ErrorNote error={error} />
      {saved && (
        <p class="note success" role="status">
          Recording settings saved.
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save recording settings'}
        </button>
      </div>
    </form>
  )
}
