// Private temporary folders that are removed on every way out: normally by their owner,
// and otherwise when the process exits or is stopped by a signal while one exists. The
// signal handlers are there only while a folder is: if nothing else listens for the
// signal, it is raised again after the cleanup, so the process still ends as it would have.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const live = new Set<string>()
const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP']

function removeAll(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true })
  live.clear()
}

function onSignal(signal: NodeJS.Signals): void {
  removeAll()
  disarm()
  // Others handle this signal (serve's graceful stop): leave the ending to them.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

function arm(): void {
  process.on('exit', removeAll)
  for (const s of SIGNALS) process.on(s, onSignal)
}

function disarm(): void {
  process.off('exit', removeAll)
  for (const s of SIGNALS) process.off(s, onSignal)
}

/** A new private folder under the system's temporary directory; `dispose` removes it. */
export function privateTempDir(prefix: string): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  if (live.size === 0) arm()
  live.add(dir)
  return {
    dir,
    dispose() {
      rmSync(dir, { recursive: true, force: true })
      if (live.delete(dir) && live.size === 0) disarm()
    },
  }
}
