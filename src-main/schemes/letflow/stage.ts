// LetFlow: a packet that starts a new flowlet (its flow was quiet for longer than the flowlet
// gap, or its flowlet's port died) takes a candidate uniformly at random; the rest of the
// flowlet follows it. No congestion state and no messages: flowlets alone adapt to asymmetry,
// because a flowlet on a slow path lasts longer and a gap opens less often there.
//
// Telemetry: letflow.flowlets{switch,port} (flowlets started per interval) at the switches
// that choose (those with an up port), within the table budget.

import type { PacketPool } from '../../sim/engine/packets'
import type { Rng } from '../../sim/engine/rng'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'
import type { SimSeriesDef } from '../../sim/types'
import { FlowletTable } from '../shared/flowlets'
import { inGroup, MAX_TABLE_SERIES, param } from '../shared/probes'
import { LETFLOW_PARAMS } from './params'

export class LetFlowStage implements ForwardingStage {
  readonly seesEveryHop = false
  readonly flowlets: FlowletTable
  /** Flowlets started per global port since the last telemetry sample. */
  readonly started: Float64Array
  private readonly pkts: PacketPool
  private readonly rng: Rng

  constructor(private readonly env: StageEnv) {
    const gapNs = param(env, 'letflow', 'flowletGapNs', LETFLOW_PARAMS.flowletGap.default)
    const slots = param(env, 'letflow', 'flowletSlots', LETFLOW_PARAMS.flowletSlots.default)
    this.flowlets = new FlowletTable(env.nSwitches, slots, Math.round(gapNs * 1000))
    this.started = new Float64Array(env.portBase[env.nSwitches])
    this.pkts = env.ctx.pkts
    this.rng = env.rng
    this.addSeries()
  }

  select(s: number, _inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    const now = this.env.ctx.now
    const e = this.flowlets.entry(s, this.pkts.hash[p])
    const cur = this.flowlets.current(e, now)
    if (cur >= 0 && inGroup(cur, cand, off, len)) return cur
    const port = cand[off + this.rng.nextInt(len)]
    this.flowlets.set(e, port, now)
    this.started[this.env.portBase[s] + port]++
    return port
  }

  onLinkChange(s: number, port: number, up: boolean): void {
    if (!up) this.flowlets.clearPort(s, port)
  }

  private addSeries(): void {
    const env = this.env
    const defs: SimSeriesDef[] = []
    const ports: number[] = []
    for (let s = 0; s < env.nSwitches && defs.length < MAX_TABLE_SERIES; s++) {
      const name = env.fabric.nodes[env.switchNode[s]].name
      for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) {
        if (env.portIsUp[g] !== 1) continue
        defs.push({ kind: 'letflow.flowlets', entity: { switch: name, port: g - env.portBase[s] }, unit: 'count' })
        ports.push(g)
      }
    }
    if (defs.length === 0) return
    env.addSeries(defs, (out) => {
      for (let i = 0; i < ports.length; i++) {
        out[i] = this.started[ports[i]]
        this.started[ports[i]] = 0
      }
    })
  }
}
