/** Reads the Prometheus text format: every sample by its name and labels, and the families announced by # TYPE. */
export interface Scrape {
  families: Set<string>
  /** The sample named so whose labels include `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined
  /** Every sample of a name, with its labels. */
  samples(name: string): Array<{ labels: Record<string, string>; value: number }>
}

export function parseProm(text: string): Scrape {
  const families = new Set<string>()
  const all: Array<{ name: string; labels: Record<string, string>; value: number }> = []
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line)
    if (type) families.add(type[1])
    if (line === '' || line.startsWith('#')) continue
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!sample) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value
    all.push({ name: sample[1], labels, value: Number(sample[3]) })
  }
  const samples = (name: string) => all.filter((s) => s.name === name)
  return {
    families,
    samples,
    value: (name, labels = {}) => samples(name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value,
  }
}
