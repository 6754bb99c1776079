// Builds the core for a Node process (CLI, web mode, tests). The Electron shell builds
// the same thing, passing its own native binding path for better-sqlite3.
import { experimentTemplatesDir, userDataDir, workloadsDir } from './paths'
import { FileSecretStore, defaultSecretsPath } from './secrets'
import { Core } from './services'
import { openStore } from './store'
import { p4labKnownHosts } from './ssh'
import { SimDriver } from './targets/sim/driver'

export { Core } from './services'
export { createDispatch, type Dispatch } from './dispatch'

export interface NodeCoreOptions {
  dbPath: string
  nativeBinding?: string
  baseDir?: string
  /** Simulator runs at once; defaults to one per core. */
  parallelRuns?: number
  /** Where known_hosts and secrets.json live; default the user data directory (P4LAB_HOME). */
  dataDir?: string
}

export function createNodeCore(opts: NodeCoreOptions): Core {
  const store = openStore(opts.dbPath, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : undefined)
  return new Core({
    store,
    drivers: { sim: new SimDriver({ parallelRuns: opts.parallelRuns }) },
    workloadsDir: workloadsDir(),
    templatesDir: experimentTemplatesDir(),
    defaultBaseDir: opts.baseDir ?? process.cwd(),
    knownHosts: p4labKnownHosts(opts.dataDir ?? userDataDir()),
    secrets: new FileSecretStore(defaultSecretsPath(opts.dataDir ?? userDataDir())),
  })
}
