// One cell of a shipped template run in this thread, as the sim worker runs it (routes from
// the control plane included), so it can be profiled (`node --cpu-prof`) without a worker.
// Exported for bench/golden.ts and bench/fig5a.ts; run alone it times one cell:
//   node scripts/run-ts.mjs bench/template-run.ts FILE.yaml SCHEME LOAD SEED [FLOWS]
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parseExperiment } from '../src-main/core/spec'
import { simConfigFor, simRoutes } from '../src-main/core/targets/sim/config'
import { runSim } from '../src-main/schemes'
import type { SimConfig, SimResult } from '../src-main/sim'

const root = process.env.P4LAB_ROOT ?? process.cwd()

export interface Cell {
  template: string
  scheme?: string
  load?: number
  seed?: number
  /** Cut the workload to this many flows (Poisson) or background flows (incast). */
  flows?: number
}

/** The SimConfig the sim target would give the worker for this cell. */
export function cellConfig(cell: Cell): SimConfig {
  const dir = join(root, 'resources', 'experiments')
  const file = cell.template.endsWith('.yaml') ? cell.template : `${cell.template}.yaml`
  const r = parseExperiment(readFileSync(join(dir, basename(file)), 'utf8'), { file, baseDir: dir, workloadsDir: join(root, 'resources', 'workloads') })
  if (!r.ok) throw new Error(`${file}: ${r.errors.map((e) => e.message).join('; ')}`)
  const spec = r.spec
  const scheme = cell.scheme ?? spec.schemes[spec.schemes.length - 1]
  if (!(spec.schemes as string[]).includes(scheme)) throw new Error(`${file}: no scheme '${scheme}' (has ${spec.schemes.join(', ')})`)
  const load = cell.load ?? spec.workload.loads[spec.workload.loads.length - 1]
  const cfg = simConfigFor({ runId: 1, spec, scheme, load, seed: cell.seed ?? spec.seeds[0] })
  const n = cell.flows
  const w = cfg.workload
  if (n !== undefined) {
    if (w.kind === 'poisson') cfg.workload = { ...w, flows: n }
    else if (w.kind === 'incast') cfg.workload = { ...w, background: { ...w.background, flows: n } }
    else throw new Error(`${file}: cannot cut a '${w.kind}' workload to ${n} flows`)
  }
  return { ...cfg, routes: simRoutes(cfg.topology) }
}

export interface CellRun {
  result: SimResult
  telemetrySamples: number
  /** FNV-1a over every telemetry batch (times and values), in order. */
  telemetryHash: number
  wallMs: number
}

export function runCell(cfg: SimConfig): CellRun {
  let samples = 0
  let h = 0x811c9dc5
  const mix = (a: Float64Array): void => {
    const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
    for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193)
  }
  const t0 = performance.now()
  const result = runSim(cfg, {
    onTelemetry: (t, values) => {
      samples += t.length
      mix(t as Float64Array)
      mix(values as Float64Array)
    },
  })
  return { result, telemetrySamples: samples, telemetryHash: h >>> 0, wallMs: performance.now() - t0 }
}

if (basename(process.argv[1] ?? '').startsWith('template-run') && process.argv[2] !== undefined) {
  const [template, scheme, load, seed, flows] = process.argv.slice(2)
  const cfg = cellConfig({ template, scheme, load: load ? Number(load) : undefined, seed: seed ? Number(seed) : undefined, flows: flows ? Number(flows) : undefined })
  const cpu0 = process.cpuUsage()
  const r = runCell(cfg)
  const cpu = process.cpuUsage(cpu0)
  const c = r.result.counters
  console.log(`${template} ${cfg.scheme} load ${load ?? '-'} seed ${cfg.seed}: ${(r.wallMs / 1000).toFixed(2)} s wall, ${(cpu.user / 1e6).toFixed(2)} s user, ${c.events.toLocaleString('en-US')} events, ${c.packetHops.toLocaleString('en-US')} hops, sim ${(c.simTimeNs / 1e6).toFixed(1)} ms, ${r.telemetrySamples} samples`)
}
