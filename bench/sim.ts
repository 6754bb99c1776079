// The simulator benchmark: a fixed, seeded scenario run under ECMP and RPS. It reports
// throughput (events/s, packet-hops/s) and the peak event-heap size, which should track
// the element count, not the packets in flight; then perm-k8 (bench/perm-k8.ts), htsim's
// scenario. Run with `npm run bench`; BENCH=perm-k8 runs only that one.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadCdf, type SchemeName, type SimConfig } from '../src-main/sim'
import { runSim } from '../src-main/schemes'
import { benchPermK8 } from './perm-k8'

const root = process.env.P4LAB_ROOT ?? process.cwd()
const cdf = loadCdf(readFileSync(join(root, 'resources/workloads/web-search.cdf'), 'utf8'))

function scenario(scheme: SchemeName): SimConfig {
  return {
    topology: {
      kind: 'leaf-spine',
      leaves: 4,
      spines: 2,
      hostsPerLeaf: 8,
      hostLinkBps: 10e9,
      fabricLinkBps: 40e9,
      linkDelayNs: 1000,
      queuePackets: 300,
    },
    scheme,
    transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
    workload: { kind: 'poisson', cdf, load: 0.6, flows: 2000 },
    seed: 1,
    telemetryIntervalNs: 100_000,
    maxSimTimeNs: 60e9,
  }
}

const fmt = (x: number, digits = 0): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

interface Figures {
  wallMs: number
  events: number
  hops: number
}

function bench(scheme: SchemeName): Figures {
  const cfg = scenario(scheme)
  runSim({ ...cfg, workload: { kind: 'poisson', cdf, load: 0.6, flows: 200 } }) // warm up the JIT
  let telemetrySamples = 0
  const t0 = performance.now()
  const r = runSim(cfg, { onTelemetry: (t) => (telemetrySamples += t.length) })
  const wallMs = performance.now() - t0
  const c = r.counters
  const s = wallMs / 1000
  let unfinished = 0
  let fctSum = 0
  for (let i = 0; i < r.flows.finishNs.length; i++) {
    if (r.flows.finishNs[i] < 0) unfinished++
    else fctSum += r.flows.finishNs[i] - r.flows.startNs[i]
  }
  const done = r.flows.finishNs.length - unfinished
  console.log(`\n== ${scheme.toUpperCase()}: leaf-spine 4x2x8, 10G hosts / 40G fabric, web-search @0.6, 2000 flows, seed 1`)
  console.log(`wall time            ${fmt(wallMs, 1)} ms`)
  console.log(`events               ${fmt(c.events)}  (${fmt(c.events / s / 1e6, 2)} M/s)`)
  console.log(`packet-hops          ${fmt(c.packetHops)}  (${fmt(c.packetHops / s / 1e6, 2)} M/s)`)
  console.log(`flows                ${fmt(done)} finished, ${unfinished} unfinished, mean FCT ${fmt(fctSum / Math.max(1, done) / 1000, 1)} us`)
  console.log(`sim time             ${fmt(c.simTimeNs / 1e6, 3)} ms  (${fmt(c.simTimeNs / 1e6 / wallMs, 3)} sim ms per wall ms)`)
  console.log(`peak heap size       ${c.maxHeapSize}  (peak packets live: ${fmt(c.maxPacketsInFlight ?? 0)})`)
  console.log(`drops / retransmits  ${fmt(c.drops)} / ${fmt(c.retransmits)}  (timeouts ${c.timeouts}, fast rtx ${c.fastRetransmits}, reordered ${fmt(c.reorderedPackets)})`)
  console.log(`telemetry samples    ${fmt(telemetrySamples)}`)
  return { wallMs, events: c.events, hops: c.packetHops }
}

if (process.env.BENCH !== 'perm-k8') {
  const ecmp = bench('ecmp')
  const rps = bench('rps')
  const rate = (f: Figures): number => f.events / f.wallMs
  console.log(`\nRPS / ECMP: events/s x${(rate(rps) / rate(ecmp)).toFixed(2)}, wall time x${(rps.wallMs / ecmp.wallMs).toFixed(2)}`)
}
benchPermK8()
