// The quickstart experiment's scenario (resources/experiments/quickstart.yaml) run
// directly: FCT figures, loss counters and the sender-side queueing that decides small
// flows' FCTs. Run with `node bench/run.mjs quickstart.ts [load ...]`; HOSTQ=n overrides
// topology.hostQueuePackets.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadCdf, type SchemeName, type SimConfig } from '../src-main/sim'
import { runSim } from '../src-main/schemes'

const root = process.env.P4LAB_ROOT ?? process.cwd()
const cdf = loadCdf(readFileSync(join(root, 'resources/workloads/web-search.cdf'), 'utf8'))

function scenario(scheme: SchemeName, load: number): SimConfig {
  return {
    topology: {
      kind: 'leaf-spine',
      leaves: 4,
      spines: 2,
      hostsPerLeaf: 4,
      hostLinkBps: 10e9,
      fabricLinkBps: 20e9,
      linkDelayNs: 1000,
      queuePackets: 100,
      ...(process.env.HOSTQ ? { hostQueuePackets: Number(process.env.HOSTQ) } : {}),
    },
    scheme,
    transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
    workload: { kind: 'poisson', cdf, load, flows: 600 },
    seed: 1,
    telemetryIntervalNs: 100_000,
    maxSimTimeNs: 5e9,
  }
}

const pct = (xs: number[], p: number): number => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const us = (ns: number): string => (ns / 1000).toFixed(1)

const loads = process.argv.slice(2).map(Number).filter((x) => x > 0)
for (const load of loads.length > 0 ? loads : [0.3, 0.6]) {
  for (const scheme of ['ecmp', 'rps'] as const) {
    const t0 = performance.now()
    const r = runSim(scenario(scheme, load))
    const wall = performance.now() - t0
    const fct: number[] = []
    const small: number[] = []
    let unfinished = 0
    for (let i = 0; i < r.flows.finishNs.length; i++) {
      if (r.flows.finishNs[i] < 0) {
        unfinished++
        continue
      }
      const d = r.flows.finishNs[i] - r.flows.startNs[i]
      fct.push(d)
      if (r.flows.sizeBytes[i] < 100_000) small.push(d)
    }
    fct.sort((a, b) => a - b)
    small.sort((a, b) => a - b)
    const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)
    const c = r.counters
    console.log(
      `${scheme} @${load}: p50 ${us(pct(fct, 0.5))} us, mean ${us(mean(fct))} us, p99 ${us(pct(fct, 0.99))} us | ` +
        `<100KB (${small.length}): mean ${us(mean(small))} us, p50 ${us(pct(small, 0.5))} us, p99 ${us(pct(small, 0.99))} us | ` +
        `unfinished ${unfinished}`,
    )
    console.log(
      `   data ${c.dataPacketsSent}, rtx ${c.retransmits}, timeouts ${c.timeouts}, fast rtx ${c.fastRetransmits}, drops ${c.drops}, ` +
        `max host queue ${c.maxHostQueuePackets ?? '-'}, events ${c.events} (${(c.events / wall / 1000).toFixed(2)} M/s, ${wall.toFixed(0)} ms)`,
    )
  }
}
