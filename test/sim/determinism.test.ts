import { expect, test } from 'vitest'
import { type SimConfig, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { config, topo, webSearch } from './helpers'

function run(cfg: SimConfig): { result: SimResult; telemetry: number[][] } {
  const telemetry: number[][] = []
  const result = runSim(cfg, {
    onTelemetry: (t, values) => telemetry.push([...t], [...values]),
  })
  return { result, telemetry }
}

const cfg = (seed: number): SimConfig =>
  config(
    { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 80 },
    { scheme: 'rps', seed, topology: topo({ fabricLinkBps: 10e9, queuePackets: 50 }) },
  )

test('the same config gives the same result, byte for byte', () => {
  const a = run(cfg(7))
  const b = run(cfg(7))
  expect(b.result).toEqual(a.result)
  expect(b.telemetry).toEqual(a.telemetry)
  expect(JSON.stringify(b.result.counters)).toBe(JSON.stringify(a.result.counters))
  expect(Buffer.from(b.result.flows.finishNs.buffer).equals(Buffer.from(a.result.flows.finishNs.buffer))).toBe(true)
})

test('a different seed gives different flows and results', () => {
  const a = run(cfg(7)).result
  const b = run(cfg(8)).result
  expect(b.flows.sizeBytes).not.toEqual(a.flows.sizeBytes)
  expect(b.counters.events).not.toBe(a.counters.events)
})

test('ECMP and RPS runs with one seed see the same workload', () => {
  const a = runSim({ ...cfg(3), scheme: 'ecmp' })
  const b = runSim({ ...cfg(3), scheme: 'rps' })
  expect(b.flows.src).toEqual(a.flows.src)
  expect(b.flows.dst).toEqual(a.flows.dst)
  expect(b.flows.sizeBytes).toEqual(a.flows.sizeBytes)
  expect(b.flows.startNs).toEqual(a.flows.startNs)
})
