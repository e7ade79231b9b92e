/** `npm start`: the cluster on its embedded default (LMDB in ./data). */
import { loadConfig } from './config.js'
import { runPrimary } from './supervisor/primary.js'

try {
  await runPrimary(loadConfig())
} catch (error) {
  console.error(`svc: ${(error as Error).message}`)
  process.exit(1)
}
