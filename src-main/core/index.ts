// Builds the core for a Node process (CLI, web mode, tests). The Electron shell builds
// the same thing, passing its own native binding path for better-sqlite3.
import { dirname, join } from 'node:path'
import { experimentTemplatesDir, packageRoot, resourcesDir, userDataDir, workloadsDir } from './paths'
import { FileSecretStore, defaultSecretsPath } from './secrets'
import { Core } from './services'
import type { ArchiveDialogs } from './handlers/archive'
import { openStore } from './store'
import { p4labKnownHosts } from './ssh'
import { SimDriver } from './targets/sim/driver'
import { runMemoryMb } from './run-limits'
import { Bmv2Driver } from './targets/bmv2/driver'
import { TofinoDriver } from './targets/tofino/driver'

export { Core } from './services'
export type { ArchiveDialogs } from './handlers/archive'
export { createDispatch, type Dispatch } from './dispatch'

export interface NodeCoreOptions {
  dbPath: string
  nativeBinding?: string
  baseDir?: string
  /** Simulator runs at once; defaults to one per core. */
  parallelRuns?: number
  /** Where known_hosts and secrets.json live; default the user data directory (P4LAB_HOME). */
  dataDir?: string
  /** The memory ceiling per simulator run, in MB; default P4LAB_RUN_MEMORY_MB, else RUN_LIMITS.memoryMb. */
  runMemoryMb?: number
  /** The desktop shell's save/open dialogs for archives (archive.export / archive.import). */
  archiveDialogs?: ArchiveDialogs
  /** The desktop shell's open dialog for an SSH private key (testbeds.pickKeyFile). */
  keyFileDialog?: () => Promise<string | null>
  /** How often open Slurm sweeps are looked at; default 3 s. */
  slurmIntervalMs?: number
  /** The caller only reads: a database it cannot write is opened read-only (OpenStoreOptions.forReading). */
  forReading?: boolean
}

export function createNodeCore(opts: NodeCoreOptions): Core {
  const memoryMb = opts.runMemoryMb ?? runMemoryMb()
  const store = openStore(opts.dbPath, { ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}), ...(opts.forReading ? { forReading: true } : {}) })
  const knownHosts = p4labKnownHosts(opts.dataDir ?? userDataDir())
  const secrets = new FileSecretStore(defaultSecretsPath(opts.dataDir ?? userDataDir()))
  // The SSH targets: a stored testbed's kind picks its driver (orchestrator.driverFor).
  const remote = {
    artifacts: store,
    knownHosts,
    secrets,
    dataDir: store.file === ':memory:' ? userDataDir() : dirname(store.file),
    p4Dir: join(packageRoot(), 'p4'),
    agentFile: join(resourcesDir(), 'agent', 'p4lab_agent.py'),
  }
  return new Core({
    store,
    drivers: { sim: new SimDriver({ parallelRuns: opts.parallelRuns, memoryMb }), bmv2: new Bmv2Driver(remote), tofino: new TofinoDriver(remote) },
    workloadsDir: workloadsDir(),
    templatesDir: experimentTemplatesDir(),
    defaultBaseDir: opts.baseDir ?? process.cwd(),
    knownHosts,
    secrets,
    archiveDialogs: opts.archiveDialogs,
    ...(opts.keyFileDialog ? { keyFileDialog: opts.keyFileDialog } : {}),
    ...(opts.slurmIntervalMs ? { slurmIntervalMs: opts.slurmIntervalMs } : {}),
  })
}
