// Another process holds the database's write lock for longer than the busy timeout while a run
// goes on: the writes the run needs fail, and that fails the run, stored with the reason once
// the lock is gone. The process lives on (before, the error escaped a timer or a promise and
// ended it, leaving the run open).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { afterAll, describe, expect, it } from 'vitest'
import type { Core } from '../../src-main/core'
import { tempCore } from '../helpers/core'

const YAML = `name: locked
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 4, hostsPerLeaf: 8, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.5], flows: 800 }
seeds: [1]
telemetry: { interval: 100us }
`
/** Longer than the store's busy timeout (10 s): every write in that time fails. */
const HOLD_MS = 25_000

const opened: Core[] = []
afterAll(() => {
  for (const c of opened) {
    c.orchestrator.cancelAll()
    if (c.opts.store.open) c.opts.store.close()
  }
})

describe('a store locked by another process', () => {
  it('fails the run with the reason and leaves the process running', async () => {
    const { core, dbPath } = tempCore(1)
    opened.push(core)
    const exp = core.findOrCreateExperiment(YAML, null)
    const [run] = core.runExperiment(exp.id)
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3')
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(sqlite)}); const d = new D(process.argv[1]);
         d.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${HOLD_MS}); d.exec('COMMIT'); d.close()`,
        dbPath,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const held = once(holder, 'exit')
    await once(holder.stdout!, 'data')
    await core.orchestrator.wait([run.id])
    await held
    const row = core.opts.store.getRun(run.id)!
    expect(row.status).toBe('failed')
    expect(row.error).toMatch(/database is locked/)
    // The store still works for the next run.
    const [next] = core.runExperiment(exp.id)
    expect(core.opts.store.getRun(next.id)!.status).not.toBe('failed')
    core.orchestrator.cancel(next.id)
    await core.orchestrator.wait([next.id])
  }, 600_000)
})
