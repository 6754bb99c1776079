// Back-pressure from the store to the simulator: a consumer slower than the worker keeps the
// driver's queue of telemetry batches bounded (the worker waits for credits), and every batch
// still arrives.
import { describe, expect, it } from 'vitest'
import { SimDriver } from '../../src-main/core/targets/sim/driver'
import { TELEMETRY_IN_FLIGHT } from '../../src-main/core/targets/sim/protocol'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment } from '../../src-main/core/spec'
import { TINY_YAML } from '../helpers/core'

describe('sim telemetry back-pressure', () => {
  it('a slow consumer holds the worker to a few batches in flight; nothing is lost', async () => {
    const yaml = TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.5], flows: 30', 'load: [0.5], flows: 200') + 'telemetry: { interval: 10us }\n'
    const parsed = parseExperiment(yaml, { file: 'bp.yaml', baseDir: __dirname, workloadsDir: workloadsDir() })
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
    const spec = parsed.spec
    const session = new SimDriver().open({
      plan: { runId: 1, spec, scheme: 'ecmp', load: 0.5, seed: 1 },
      signal: new AbortController().signal,
      log: () => {},
    })
    await session.build()
    await session.deploy()
    await session.startTraffic()
    const queued = () => (session as unknown as { queue: Array<{ type: string }> }).queue.filter((m) => m.type === 'telemetry').length
    let batches = 0
    let instants = 0
    let maxQueued = 0
    for await (const msg of session.telemetry()) {
      if (msg.type !== 'telemetry') continue
      batches++
      instants += msg.t.length
      await new Promise((r) => setTimeout(r, 2)) // a slow disk
      maxQueued = Math.max(maxQueued, queued())
    }
    const out = await session.collect()
    await session.teardown()
    expect(batches).toBeGreaterThan(3 * TELEMETRY_IN_FLIGHT)
    expect(maxQueued).toBeLessThanOrEqual(TELEMETRY_IN_FLIGHT)
    expect(instants).toBeGreaterThan(0)
    expect(out.flows.src.length).toBe(200)
  })
})
