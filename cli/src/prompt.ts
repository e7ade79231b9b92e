/** Reading a secret: typed without echo on a terminal, or the first line of a pipe. */
import type { Readable } from 'node:stream'
import { CliError } from './errors.js'
import type { Output } from './output.js'

type Input = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }

export async function readSecret(stdin: Input, out: Output, question: string): Promise<string> {
  return (await readSecrets(stdin, out, [question]))[0]
}

/** Several secrets: one prompt each on a terminal, else the first lines of the pipe, in order. */
export async function readSecrets(stdin: Input, out: Output, questions: string[]): Promise<string[]> {
  if (stdin.isTTY && stdin.setRawMode) {
    const answers: string[] = []
    for (const question of questions) answers.push(await readHidden(stdin, out, question))
    return answers
  }
  const chunks: Buffer[] = []
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer))
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)
  return questions.map((_, i) => lines[i] ?? '')
}

function readHidden(stdin: Input, out: Output, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = ''
    // Raw mode before the prompt shows: nothing typed after it is echoed.
    stdin.setRawMode!(true)
    out.note(question.trimEnd())
    stdin.resume()
    const done = (error?: CliError) => {
      stdin.setRawMode!(false)
      stdin.pause()
      stdin.off('data', onData)
      if (error) reject(error)
      else resolve(value)
    }
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done()
        if (char === '\u0003') return done(new CliError('cancelled', 'Cancelled.', { exit: 1 }))
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1)
        else if (char >= ' ') value += char
      }
    }
    stdin.on('data', onData)
  })
}
