// The sim driver's session, up to its build step (the worker itself needs the bundle): an
// experiment with telemetry.int runs on the sim without INT, and the run's log says so.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { specOf } from '../helpers/core'
import type { RunContext } from '../../src-main/core/targets/driver'
import { SimDriver } from '../../src-main/core/targets/sim/driver'

const IGNORED = 'telemetry.int is ignored on the sim: INT postcard reports come from the v1model programs on BMv2 testbeds (docs/TESTBEDS.md)'

const dir = mkdtempSync(join(tmpdir(), 'p4lab-simdrv-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function buildLogs(telemetry: string): Promise<string[]> {
  const yaml = `name: sim-int
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
${telemetry}`
  const logs: string[] = []
  const ctx: RunContext = {
    plan: { runId: 1, spec: specOf(yaml, { baseDir: dir, testbeds: ['sim'] }), scheme: 'ecmp', load: 0.3, seed: 1 },
    signal: new AbortController().signal,
    log: (s, l) => logs.push(`${s}: ${l}`),
  }
  const s = new SimDriver({ parallelRuns: 1 }).open(ctx)
  await s.build()
  await s.teardown()
  return logs
}

describe('Sim driver: telemetry.int', () => {
  it('notes in the run log that the sim ignores telemetry.int', async () => {
    expect(await buildLogs('telemetry: { int: true }\n')).toContain(`sim: ${IGNORED}`)
  })

  it('says nothing about INT when the experiment has none', async () => {
    expect((await buildLogs('')).some((l) => l.includes('telemetry.int'))).toBe(false)
  })
})

describe('Sim driver: a run the worker ends with an error', () => {
  it('fails with the error the worker reported, though the worker exits before telemetry() reaches it', { timeout: 120_000 }, async () => {
    // 500,000 flows need some 120 MB, mostly typed arrays the heap limit does not count: the worker's own
    // check reports the 48 MB ceiling once the run is set up, then the worker exits.
    const yaml = `name: sim-ceiling
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 500000 }
`
    const ctx: RunContext = { plan: { runId: 1, spec: specOf(yaml, { baseDir: dir, testbeds: ['sim'] }), scheme: 'ecmp', load: 0.3, seed: 1 }, signal: new AbortController().signal, log: () => {} }
    const s = new SimDriver({ parallelRuns: 1, memoryMb: 48 }).open(ctx)
    await s.build()
    await s.deploy()
    await s.startTraffic()
    // The consumer comes late (a busy store): the worker has posted its error and exited by then.
    await expect.poll(() => (s as unknown as { exited: boolean }).exited, { timeout: 100_000, interval: 50 }).toBe(true)
    const consume = async () => {
      for await (const _ of s.telemetry()) void _
    }
    await expect(consume()).rejects.toThrow(/^the run went over the memory ceiling per run of 48 MB \(it used \d+ MB\) and was stopped/)
    await s.teardown()
  })
})
