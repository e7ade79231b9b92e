/**
 * What the CLI prints. Human output by default: aligned tables, colour only
 * when the stream is a terminal and NO_COLOR is unset (https://no-color.org:
 * any non-empty value); --json prints one JSON document for machines.
 */
import type { Writable } from 'node:stream'
import type { CliError } from './errors.js'
import type { Env } from './config.js'

export interface Output {
  json: boolean
  /** A line to stdout. */
  line(text?: string): void
  /** A note to stderr (progress, advice): never mixed into what a pipe reads. */
  note(text: string): void
  /** One JSON document to stdout. */
  data(value: unknown): void
  /** Raw bytes to stdout, resolved once written (export streams through it). */
  write(chunk: Buffer): Promise<void>
  table(columns: string[], rows: string[][]): void
  /** `Label   value` lines, labels aligned. */
  pairs(rows: [string, string][]): void
  error(error: CliError): void
  bold(text: string): string
  dim(text: string): string
  green(text: string): string
  red(text: string): string
  yellow(text: string): string
}

export interface Streams {
  stdout: Writable & { isTTY?: boolean }
  stderr: Writable & { isTTY?: boolean }
}

const ANSI = /\x1b\[[0-9;]*m/g
export const visibleLength = (text: string) => text.replace(ANSI, '').length

export function colourAllowed(stream: { isTTY?: boolean }, env: Env, noColorFlag: boolean): boolean {
  return Boolean(stream.isTTY) && !noColorFlag && !env.NO_COLOR && env.TERM !== 'dumb'
}

export function createOutput(streams: Streams, env: Env, options: { json: boolean; noColor: boolean }): Output {
  const outColour = !options.json && colourAllowed(streams.stdout, env, options.noColor)
  const errColour = colourAllowed(streams.stderr, env, options.noColor)
  const paint = (on: boolean, open: number, close: number) => (text: string) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : text)
  const out = {
    bold: paint(outColour, 1, 22),
    dim: paint(outColour, 2, 22),
    green: paint(outColour, 32, 39),
    red: paint(outColour, 31, 39),
    yellow: paint(outColour, 33, 39),
  }
  const err = { red: paint(errColour, 31, 39), bold: paint(errColour, 1, 22), dim: paint(errColour, 2, 22) }
  return {
    json: options.json,
    ...out,
    line: (text = '') => void streams.stdout.write(text + '\n'),
    note: (text) => void streams.stderr.write(text + '\n'),
    data: (value) => void streams.stdout.write(JSON.stringify(value, null, 2) + '\n'),
    write: (chunk) => new Promise((resolve, reject) => void streams.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
    table(columns, rows) {
      const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => visibleLength(r[i] ?? ''))))
      const format = (cells: string[]) =>
        cells
          .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i] - visibleLength(cell))))
          .join('  ')
          .trimEnd()
      streams.stdout.write(out.bold(format(columns)) + '\n')
      for (const row of rows) streams.stdout.write(format(row) + '\n')
    },
    pairs(rows) {
      const width = Math.max(...rows.map(([label]) => label.length))
      for (const [label, value] of rows) streams.stdout.write(`${out.dim(label.padEnd(width))}  ${value}\n`)
    },
    error(error) {
      if (options.json) {
        streams.stderr.write(JSON.stringify(error.toJSON()) + '\n')
        return
      }
      const status = error.status ? ` ${error.status}` : ''
      streams.stderr.write(`${err.red(err.bold('Error:'))} ${error.message} ${err.dim(`(${error.code}${status})`)}\n`)
      if (error.details && Array.isArray(error.details.invalid)) {
        for (const pattern of error.details.invalid as string[]) streams.stderr.write(`  invalid: ${pattern}\n`)
      }
      if (error.hint) streams.stderr.write(`${err.bold('Hint:')} ${error.hint}\n`)
    },
  }
}
