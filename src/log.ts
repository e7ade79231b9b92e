/** One JSON line per event on stdout (stderr for errors). Never given secrets. */
type Fields = Record<string, unknown>

function write(stream: NodeJS.WriteStream, level: string, msg: string, fields?: Fields): void {
  stream.write(JSON.stringify({ t: new Date().toISOString(), level, pid: process.pid, msg, ...fields }) + '\n')
}

export const log = {
  info: (msg: string, fields?: Fields) => write(process.stdout, 'info', msg, fields),
  warn: (msg: string, fields?: Fields) => write(process.stderr, 'warn', msg, fields),
  error: (msg: string, fields?: Fields) => write(process.stderr, 'error', msg, fields),
}
