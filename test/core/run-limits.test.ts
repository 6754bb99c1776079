// The caps at run time through the real orchestrator and a real SQLite store: a driver that
// logs without end, and one whose INT-style points come faster than the cap per source.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Core } from '../../src-main/core'
import { experimentTemplatesDir, workloadsDir } from '../../src-main/core/paths'
import { RUN_LIMITS } from '../../src-main/core/run-limits'
import { parseExperiment } from '../../src-main/core/spec'
import { openStore } from '../../src-main/core/store'
import type { TargetDriver, TargetMessage } from '../../src-main/core/targets/driver'
import { TINY_YAML, tempCore } from '../helpers/core'

const NOTHING_COLLECTED = {
  flows: { src: new Int32Array(0), dst: new Int32Array(0), sizeBytes: new Float64Array(0), startNs: new Float64Array(0), finishNs: new Float64Array(0), deliveredBytes: new Float64Array(0), group: new Int32Array(0) },
  counters: {},
  facts: {},
}

const ONE_RUN = TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.5]', 'load: 0.3')

const closers: Array<() => void> = []
afterEach(() => {
  for (const c of closers.splice(0)) c()
})

function coreWith(driver: TargetDriver) {
  const { dbPath } = tempCore()
  const store = openStore(dbPath)
  closers.push(() => store.open && store.close())
  const core = new Core({ store, drivers: { sim: driver }, workloadsDir: workloadsDir(), templatesDir: experimentTemplatesDir(), defaultBaseDir: process.cwd() })
  return { core, store }
}

describe('caps at run time', { timeout: 60_000 }, () => {
  it('keeps the first log lines of each source, notes the cap once as a limit event, and counts the rest', async () => {
    const cap = RUN_LIMITS.logLinesPerSource
    const chatty: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: (ctx) => ({
        build: async () => {
          for (let i = 0; i < cap + 500; i++) ctx.log('agent', `line ${i}`)
          ctx.log('compiler', 'one line of its own')
        },
        deploy: async () => {},
        startTraffic: async () => {},
        telemetry: async function* () {},
        collect: async () => NOTHING_COLLECTED,
        teardown: async () => {},
      }),
    }
    const { core, store } = coreWith(chatty)
    const exp = core.findOrCreateExperiment(ONE_RUN, null)
    const [run] = core.runExperiment(exp.id)
    await core.orchestrator.wait([run.id])
    await new Promise((r) => setImmediate(r))
    const logs = store.listLogs(run.id)
    const agent = logs.filter((l) => l.source === 'agent').map((l) => l.line)
    expect(agent).toHaveLength(cap + 1)
    expect(agent[cap - 1]).toBe(`line ${cap - 1}`)
    expect(agent[cap]).toBe(`log: 'agent' reached ${cap.toLocaleString('en-US')} lines, the cap on log lines per source per run; its further lines are not stored`)
    // Another source is not held back by the chatty one.
    expect(logs.filter((l) => l.source === 'compiler').map((l) => l.line)).toEqual(['one line of its own'])
    expect(logs.map((l) => l.line)).toContain(`log: lines over the cap on log lines per source not stored: 499 of 'agent'`)
    const limits = store.listEvents(run.id).filter((e) => e.kind === 'warning')
    expect(limits.map((e) => e.detail)).toEqual([expect.objectContaining({ code: 'limit.log-lines', limit: 'log lines', source: 'agent', cap })])
  })

  it('thins points over the rate cap per series, by their own timestamps, and reports each series once', async () => {
    const cap = RUN_LIMITS.samplesPerMsPerSource
    // Series 0: 3,000 points in one ms (over the cap); series 1: 500 (under it). Then one
    // more point of series 0 in the next ms, which is kept.
    const n0 = 3 * cap
    const series = [...Array.from({ length: n0 }, () => 0), ...Array.from({ length: 500 }, () => 1), 0]
    const t = [...Array.from({ length: n0 }, (_, i) => 1e6 + i * 100), ...Array.from({ length: 500 }, (_, i) => 1e6 + i * 1000), 2e6 + 5]
    const values = series.map((_, i) => i)
    const fast: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: () => ({
        build: async () => {},
        deploy: async () => {},
        startTraffic: async () => {},
        telemetry: async function* (): AsyncIterable<TargetMessage> {
          yield { type: 'series', defs: [{ kind: 'int.hopLatency', entity: { switch: 's1', port: 1 }, unit: 'ns' }, { kind: 'int.hopLatency', entity: { switch: 's1', port: 2 }, unit: 'ns' }] }
          yield { type: 'points', series, t, values }
        },
        collect: async () => NOTHING_COLLECTED,
        teardown: async () => {},
      }),
    }
    const { core, store } = coreWith(fast)
    const exp = core.findOrCreateExperiment(ONE_RUN, null)
    const [run] = core.runExperiment(exp.id)
    await core.orchestrator.wait([run.id])
    await new Promise((r) => setImmediate(r))
    const read = store.readSamples(run.id)
    const stored = read.defs.map((d, i) => [JSON.stringify(d.entity), read.values[i].filter((v) => !Number.isNaN(v)).length])
    expect(stored).toEqual([
      ['{"switch":"s1","port":1}', cap + 1],
      ['{"switch":"s1","port":2}', 500],
    ])
    const limits = store.listEvents(run.id).filter((e) => e.kind === 'warning').map((e) => e.detail)
    expect(limits).toEqual([expect.objectContaining({ code: 'limit.telemetry-rate', limit: 'telemetry rate', source: 'int.hopLatency{"switch":"s1","port":1}', cap })])
    expect(store.listLogs(run.id).map((l) => l.line)).toContain(`telemetry: ${n0 - cap} samples of 'int.hopLatency{"switch":"s1","port":1}' over the cap on telemetry rate per source were not stored`)
  })
})

describe('the budgets leave paper-scale experiments alone', () => {
  const opts = { file: 'x.yaml', baseDir: experimentTemplatesDir(), workloadsDir: workloadsDir() }

  it('every template in resources/experiments validates', () => {
    const files = readdirSync(experimentTemplatesDir()).filter((f) => f.endsWith('.yaml'))
    expect(files.length).toBeGreaterThan(5)
    for (const f of files) {
      const r = parseExperiment(readFileSync(join(experimentTemplatesDir(), f), 'utf8'), { ...opts, file: f })
      expect(r.ok ? [] : r.errors, f).toEqual([])
    }
  })

  it('accepts each budget at its edge: 1,000,000 flows, 256 leaves, 254 hosts per leaf, a two-line description', () => {
    const base = `name: edge\ntopology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }\nschemes: [ecmp]\nworkload: { kind: web-search, load: 0.5, flows: 40 }\n`
    const ok = (yaml: string) => {
      const r = parseExperiment(yaml, opts)
      return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)
    }
    expect(ok(base.replace('flows: 40', 'flows: 1000000'))).toEqual([])
    expect(ok(base.replace('leaves: 2,', 'leaves: 256,').replace('spines: 2', 'spines: 1') + 'telemetry: { interval: 10ms }\n')).toEqual([])
    expect(ok(base.replace('hostsPerLeaf: 2', 'hostsPerLeaf: 254').replace('spines: 2', 'spines: 2') + 'telemetry: { interval: 1ms }\n')).toEqual([])
    expect(ok(`${base}description: "one line\\n\\tand a tabbed second"\n`)).toEqual([])
    expect(ok(base.replace('flows: 40', 'flows: 1000001'))).toEqual([expect.stringMatching(/^workload\.flows: 1,000,001 flows in one run; the budget is 1,000,000 flows per run/)])
    expect(ok(base.replace('leaves: 2,', 'leaves: 257,').replace('spines: 2', 'spines: 1') + 'telemetry: { interval: 10ms }\n')).toEqual([
      expect.stringMatching(/^topology: switch spine0 would have 257 ports.*at most 256 ports per switch/),
      expect.stringMatching(/^topology\.leaves: 257 ToRs in one pod do not fit the address plan/),
    ])
  })
})
