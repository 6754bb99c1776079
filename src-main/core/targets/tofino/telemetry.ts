// What a Tofino run polls and the series it feeds (pure; the driver runs the rounds): every
// switch's port counters (link.util over the port's rate), and the cells the scheme's
// descriptor names (poll: HULA's best hop and path utilization, for one),
// read with one bfrt_python script per switch per round (output.ts).
import type { ControlPlaneState } from '../../controlplane'
import { schemeOf } from '../../../schemes'
import type { SeriesSpec } from '../driver'
import { bfrtPollKey, combinePipes, type BfrtPollRead, type BfrtPollRound } from './output'

export interface TofinoSeriesPlan {
  defs: SeriesSpec[]
  /** Switch name → the reads of its poll script, in order. */
  reads: Map<string, BfrtPollRead[]>
  /** One frame's values, in the order of defs, from a round and the one before (null at the first), dtS seconds apart. NaN where a read failed. */
  values(round: ReadonlyMap<string, BfrtPollRound>, prev: ReadonlyMap<string, BfrtPollRound> | null, dtS: number): Float64Array
}

type Value = (round: ReadonlyMap<string, BfrtPollRound>, prev: ReadonlyMap<string, BfrtPollRound> | null, dtS: number) => number

/** `switches`: the switches this run deployed, by name, in the order their series go. */
export function tofinoSeriesPlan(state: ControlPlaneState, switches: readonly string[], scheme: string): TofinoSeriesPlan {
  const d = schemeOf(scheme)
  const iface = d.controlPlane.iface('tofino')
  const defs: SeriesSpec[] = []
  const value: Value[] = []
  const reads = new Map<string, BfrtPollRead[]>()
  const counter = (sw: string, key: string, round: ReadonlyMap<string, BfrtPollRound> | null) => round?.get(sw)?.counters.get(key)
  for (const name of switches) {
    const sw = state.switches.find((s) => s.name === name)
    if (!sw) throw new Error(`tofino poll: no switch '${name}' in the control plane`)
    const swReads: BfrtPollRead[] = sw.ports.map((q) => ({ kind: 'counter', name: 'MyEgress.portTx', index: q.port }))
    for (const q of sw.ports) {
      const key = bfrtPollKey('MyEgress.portTx', q.port)
      defs.push({ kind: 'link.util', entity: { switch: name, port: q.port }, unit: 'ratio' })
      value.push((round, prev, dtS) => {
        const a = counter(name, key, round)
        const b = counter(name, key, prev)
        return a === undefined || b === undefined || dtS <= 0 ? NaN : ((Number(a.bytes) - Number(b.bytes)) * 8) / (dtS * q.bps)
      })
    }
    const polled = d.poll?.(sw, state, iface) ?? []
    const seen = new Set(swReads.map((r) => `${r.kind}:${bfrtPollKey(r.name, r.index)}`))
    for (const c of polled) {
      const read: BfrtPollRead = 'counter' in c ? { kind: 'counter', name: c.counter, index: c.index } : { kind: 'register', name: c.register, index: c.index }
      const key = bfrtPollKey(read.name, read.index)
      if (!seen.has(`${read.kind}:${key}`)) {
        seen.add(`${read.kind}:${key}`)
        swReads.push(read)
      }
      defs.push(c.def)
      if ('counter' in c) {
        // A counter cell's series is its packets over the interval.
        value.push((round, prev) => {
          const a = counter(name, key, round)
          const b = counter(name, key, prev)
          return a === undefined || b === undefined ? NaN : Number(a.packets) - Number(b.packets)
        })
      } else {
        // Each pipe has its own copy of a register; a pipe whose ports saw none of the traffic
        // holds the reset value 0, so the largest copy is the one the traffic wrote.
        const decode = c.value
        value.push((round) => {
          const v = round.get(name)?.registers.get(key)
          return v === undefined || v.length === 0 ? NaN : decode(combinePipes(v, 'max'))
        })
      }
    }
    reads.set(name, swReads)
  }
  return {
    defs,
    reads,
    values: (round, prev, dtS) => Float64Array.from(value, (f) => f(round, prev, dtS)),
  }
}
