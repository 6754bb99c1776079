// Guards an optimisation against changing results by accident: runs a fixed set of seeded
// template cells (every transport, shared buffer with PFC, several schemes) and writes a
// digest of each (flow columns, counters, telemetry) to a file, or compares with one.
//   node scripts/run-ts.mjs bench/golden.ts record FILE.json   (before a change)
//   node scripts/run-ts.mjs bench/golden.ts check FILE.json    (after it; exit 1 on a difference)
// The reference lives outside the repository: a template edited on another branch changes it.
import { readFileSync, writeFileSync } from 'node:fs'
import { cellConfig, runCell, type Cell } from './template-run'

const CELLS: Cell[] = [
  { template: 'hula-fig5a-websearch', scheme: 'hula', load: 0.7, seed: 1, flows: 2000 },
  { template: 'hula-fig5a-websearch', scheme: 'ecmp', load: 0.7, seed: 1, flows: 2000 },
  { template: 'hula-fig5a-websearch', scheme: 'conga-prime', load: 0.5, seed: 2, flows: 1000 },
  { template: 'hula-fig8-queues', flows: 1000 },
  { template: 'floodgate-incast-mix', flows: 300 },
  { template: 'floodgate-incast-mix-droptail', flows: 300 },
  { template: 'dhlb-fig5-fct', load: 0.7 },
  { template: 'conga-link-failure', scheme: 'conga', load: 0.6, flows: 1000 },
  { template: 'hula-fig9-failure', flows: 500 },
]

function fnv(s: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, '0')
}

type Digest = Record<string, string | number>

function digest(cell: Cell): Digest {
  const run = runCell(cellConfig(cell))
  const r = run.result
  const f = r.flows
  const out: Digest = {}
  for (const [k, v] of Object.entries(f)) out[`flows.${k}`] = fnv(JSON.stringify(Array.from(v as ArrayLike<number>)))
  for (const [k, v] of Object.entries(r.counters)) out[`counters.${k}`] = v as number
  out.events = fnv(JSON.stringify(r.events))
  out.telemetrySamples = run.telemetrySamples
  out.telemetryHash = run.telemetryHash
  console.error(`${JSON.stringify(cell)}: ${(run.wallMs / 1000).toFixed(1)} s`)
  return out
}

const [mode, file] = process.argv.slice(2)
if ((mode !== 'record' && mode !== 'check') || file === undefined) {
  console.error('usage: golden.ts record|check FILE.json')
  process.exit(2)
}
const now: Record<string, Digest> = {}
for (const cell of CELLS) now[JSON.stringify(cell)] = digest(cell)
if (mode === 'record') {
  writeFileSync(file, JSON.stringify(now, null, 1))
  console.log(`recorded ${CELLS.length} cells in ${file}`)
} else {
  const ref = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Digest>
  let diffs = 0
  for (const [cell, d] of Object.entries(now)) {
    const r = ref[cell]
    if (r === undefined) {
      console.log(`${cell}: not in ${file}`)
      diffs++
      continue
    }
    for (const k of new Set([...Object.keys(r), ...Object.keys(d)])) {
      if (k === 'counters.wallMs') continue
      if (r[k] !== d[k]) {
        console.log(`${cell} ${k}: was ${r[k]}, now ${d[k]}`)
        diffs++
      }
    }
  }
  console.log(diffs === 0 ? `identical: ${CELLS.length} cells` : `${diffs} difference(s)`)
  process.exitCode = diffs === 0 ? 0 : 1
}
