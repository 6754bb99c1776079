// What a scheme's control-plane module is (each scheme's folder has one, controlplane.ts): it
// knows its P4 program's names and turns a switch's computed state into table entries,
// register writes, multicast groups and mirror sessions. When a program changes, its
// scheme's module changes; nothing else does.

import type { ProbeRule } from './replication'
import type { ControlPlaneState, CpTarget, McastGroup, RegisterInit, RegisterWrite, SwitchState, TableEntry } from './types'

/**
 * The names a program declares, for one scheme and target: logical name → P4 name
 * (control-qualified, as simple_switch_CLI and bfrt_python take them), and the parameter
 * names of each action (bfrt_python passes them by keyword).
 */
export interface P4Iface {
  /** p4/<program>/<v1model|tna>/<program>.p4; bfrt.<program> on Tofino. */
  programName: string
  names: Record<string, string>
  actionParams: Record<string, string[]>
}

export interface MirrorSession {
  session: number
  port: number
  why: string
}

/**
 * A Tofino 1 packet-generator timer application (bfrt `tf1.pktgen`): every `periodNs` one
 * batch of `packets` packets (packet_id 0..packets-1) leaves pipe-local port `sourcePort`
 * of pipe 0; each is the 6-byte pktgen header followed by `buffer` (p4/include/tna_common.p4).
 */
export interface PktgenApp {
  appId: number
  periodNs: number
  packets: number
  bufferOffset: number
  buffer: number[]
  sourcePort: number
  why: string
}

/** A strict priority for queue `qid` (ig_tm_md.qid) of an egress port (bfrt `tf1.tm.queue.sched_cfg`). */
export interface QueuePriority {
  port: number
  qid: number
  priority: number
  why: string
}

export interface RenderedProgram {
  programName: string
  entries: TableEntry[]
  registers: RegisterWrite[]
  mcastGroups: McastGroup[]
  mirrors: MirrorSession[]
  /** Tofino only: the packet-generator application the program expects (probes, credits). */
  pktgen?: PktgenApp
  /** Tofino only: queue priorities the program relies on. */
  queuePriorities?: QueuePriority[]
  /** bfrt key names per table (keyword form); absent: keys are passed positionally. */
  tables?: Record<string, { keys?: string[] }>
  /** Parameter names per qualified action. */
  actions?: Record<string, string[]>
}

export interface RenderContext {
  state: ControlPlaneState
  sw: SwitchState
  target: CpTarget
  iface: P4Iface
  /** The port number the target uses for a fabric port (BMv2 port / Tofino DEV_PORT). */
  port: (p: number) => number
  /** BMv2 rate scale (fabric rate x scale = what the BMv2 link runs at); 1 on Tofino. */
  rateScale: number
}

export interface SchemeModule {
  scheme: string
  /** The probe replication rule, for schemes with probes. */
  probes?: ProbeRule
  /** Fabric kinds the P4 program supports (all when absent). */
  fabrics?: ReadonlyArray<ControlPlaneState['fabricKind']>
  /** Register cells to initialise, by logical name (part of the computed state). */
  registers(sw: SwitchState, state: Omit<ControlPlaneState, 'switches'>): RegisterInit[]
  /** The default names of the program for a target. */
  iface(target: CpTarget): P4Iface
  /** Entries, registers, groups and mirrors for one switch. */
  render(ctx: RenderContext): Omit<RenderedProgram, 'programName' | 'actions'>
}

/** The P4 name of a logical name; throws when the interface lacks it (a renderer bug). */
export function n(iface: P4Iface, logical: string): string {
  const v = iface.names[logical]
  if (!v) throw new Error(`program ${iface.programName} has no name for '${logical}'`)
  return v
}

/** Register inits (logical) to register writes (P4 names). */
export function registerWrites(ctx: RenderContext): RegisterWrite[] {
  return ctx.sw.registers.map((r) => ({ register: n(ctx.iface, r.register), index: r.index, value: r.value, comment: r.why }))
}
