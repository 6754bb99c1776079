// Builds the core for a Node process (CLI, web mode, tests). The Electron shell builds
// the same thing, passing its own native binding path for better-sqlite3.
import { experimentTemplatesDir, workloadsDir } from './paths'
import { Core } from './services'
import { openStore } from './store'
import { SimDriver } from './targets/sim/driver'

export { Core } from './services'
export { createDispatch, type Dispatch } from './dispatch'

export interface NodeCoreOptions {
  dbPath: string
  nativeBinding?: string
  baseDir?: string
  /** Simulator runs at once; defaults to one per core. */
  parallelRuns?: number
}

export function createNodeCore(opts: NodeCoreOptions): Core {
  const store = openStore(opts.dbPath, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : undefined)
  return new Core({
    store,
    drivers: { sim: new SimDriver({ parallelRuns: opts.parallelRuns }) },
    workloadsDir: workloadsDir(),
    templatesDir: experimentTemplatesDir(),
    defaultBaseDir: opts.baseDir ?? process.cwd(),
  })
}
