// The simulator hands over finished flows while it runs (so a store can keep them before the
// run ends): every finished flow exactly once, in finish order, with the values the result
// gives it; and listening changes nothing in the result.
import { expect, test } from 'vitest'
import type { SimFlowBatch } from '../../src-main/sim/types'
import { runSim } from '../../src-main/schemes'
import { config, topo, webSearch } from './helpers'

const cfg = config(
  { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 300 },
  { scheme: 'rps', seed: 3, topology: topo({ fabricLinkBps: 10e9, queuePackets: 50 }), maxSimTimeNs: 20e6 },
)

test('finished flows come in batches while the run goes on, each once, as the result has them', () => {
  const batches: SimFlowBatch[] = []
  const withBatches = runSim(cfg, { onFlows: (b) => batches.push(b) })
  const plain = runSim(cfg)
  expect(withBatches).toEqual(plain)

  const f = plain.flows
  const finished = [...f.finishNs.keys()].filter((i) => f.finishNs[i] >= 0)
  const unfinished = f.finishNs.length - finished.length
  expect(unfinished, 'the 20 ms limit must leave some flows open').toBeGreaterThan(0)
  expect(batches.length).toBeGreaterThan(1)
  const seen = new Set<number>()
  let last = -Infinity
  for (const b of batches) {
    for (let i = 0; i < b.id.length; i++) {
      const id = b.id[i]
      expect(seen.has(id)).toBe(false)
      seen.add(id)
      expect(b.finishNs[i]).toBeGreaterThanOrEqual(last)
      last = b.finishNs[i]
      expect([b.src[i], b.dst[i], b.sizeBytes[i], b.startNs[i], b.finishNs[i]]).toEqual([f.src[id], f.dst[id], f.sizeBytes[id], f.startNs[id], f.finishNs[id]])
    }
  }
  // Those that finished after the last batch are left for the end of the run; none before it.
  const sent = finished.filter((id) => seen.has(id))
  expect(sent.length).toBe(seen.size)
  expect(finished.filter((id) => !seen.has(id)).every((id) => f.finishNs[id] >= last)).toBe(true)
})
