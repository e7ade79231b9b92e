/**
 * What the CLI prints. Human output by default: aligned tables, colour only
 * when the stream is a terminal and NO_COLOR is unset (https://no-color.org:
 * any non-empty value); --json prints one JSON document for machines.
 *
 * Text reaches the terminal with every control character escaped (C0, DEL,
 * C1: `\x1b`, `\u009b`), whoever wrote it: session keys, user ids and URLs
 * come from unauthenticated ingest, and raw they could retitle the window,
 * clear the screen, write the clipboard (OSC 52) or hide links. Line breaks
 * and tabs stay only where a text may span lines (line, note, an error
 * message), never in a table cell or a value. This module's own colours
 * travel inside the text as tokens that carry a random per-process nonce, so
 * no string from a server can forge one; the sink turns only those into SGR.
 */
import { randomBytes } from 'node:crypto'
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

const NONCE = randomBytes(8).toString('hex')
/** A colour code as it travels in text until printed: private-use delimiters around the nonce and the SGR number. */
const styleToken = (sgr: number) => `\uE000${NONCE}${sgr}\uE001`
const STYLE_TOKEN = new RegExp(`\uE000${NONCE}(\\d+)\uE001`, 'g')

export const visibleLength = (text: string) => text.replace(STYLE_TOKEN, '').length

const CONTROL = /[\x00-\x1f\x7f-\x9f]/g
const CONTROL_BUT_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g
const hex2 = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0')

/** `text` with control characters as visible escapes (`\x1b`, `\u009b`); `\n` and `\t` kept when `lines`. */
export function escapeControls(text: string, lines = false): string {
  return text.replace(lines ? CONTROL_BUT_LINES : CONTROL, (c) => (c < '\x80' ? `\\x${hex2(c)}` : `\\u00${hex2(c)}`))
}

/** What reaches the stream: controls escaped, then this module's own colour tokens made SGR sequences. */
const terminalText = (text: string, lines: boolean) => escapeControls(text, lines).replace(STYLE_TOKEN, (_, sgr: string) => `\x1b[${sgr}m`)

export function colourAllowed(stream: { isTTY?: boolean }, env: Env, noColorFlag: boolean): boolean {
  return Boolean(stream.isTTY) && !noColorFlag && !env.NO_COLOR && env.TERM !== 'dumb'
}

export function createOutput(streams: Streams, env: Env, options: { json: boolean; noColor: boolean }): Output {
  const outColour = !options.json && colourAllowed(streams.stdout, env, options.noColor)
  const errColour = colourAllowed(streams.stderr, env, options.noColor)
  const paint = (on: boolean, open: number, close: number) => (text: string) => (on ? `${styleToken(open)}${text}${styleToken(close)}` : text)
  const print = (stream: Writable, text: string, lines: boolean) => void stream.write(terminalText(text, lines) + '\n')
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
    line: (text = '') => print(streams.stdout, text, true),
    note: (text) => print(streams.stderr, text, true),
    data: (value) => void streams.stdout.write(JSON.stringify(value, null, 2) + '\n'),
    write: (chunk) => new Promise((resolve, reject) => void streams.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
    table(columns, rows) {
      // Escaped before measuring: an escape is as wide as it prints.
      const cells = rows.map((row) => row.map((cell) => escapeControls(cell)))
      const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => visibleLength(r[i] ?? ''))))
      const format = (row: string[]) =>
        row
          .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visibleLength(cell))))
          .join('  ')
          .trimEnd()
      print(streams.stdout, out.bold(format(columns)), false)
      for (const row of cells) print(streams.stdout, format(row), false)
    },
    pairs(rows) {
      const width = Math.max(...rows.map(([label]) => label.length))
      for (const [label, value] of rows) print(streams.stdout, `${out.dim(label.padEnd(width))}  ${value}`, false)
    },
    error(error) {
      if (options.json) {
        streams.stderr.write(JSON.stringify(error.toJSON()) + '\n')
        return
      }
      const status = error.status ? ` ${error.status}` : ''
      // The message may span lines (a stack trace); code, patterns and hint are one line each.
      print(streams.stderr, `${err.red(err.bold('Error:'))} ${error.message} ${err.dim(`(${escapeControls(error.code)}${status})`)}`, true)
      if (error.details && Array.isArray(error.details.invalid)) {
        for (const pattern of error.details.invalid as unknown[]) print(streams.stderr, `  invalid: ${String(pattern)}`, false)
      }
      if (error.hint) print(streams.stderr, `${err.bold('Hint:')} ${error.hint}`, false)
    },
  }
}
