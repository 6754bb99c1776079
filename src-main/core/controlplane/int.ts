// The INT option's control plane (p4/README.md, "INT option (v1model, -DP4LAB_INT)"): what each
// switch of a BMv2 run is configured with when the experiment has telemetry.int on. Pure data,
// like the rest of the control plane; render/cli.ts formats it, the BMv2 driver's netns plan
// makes the links it names.
//
// Per switch:
// - a collector port: the BMv2 port after the switch's last fabric port, wired to the collector
//   (in a BMv2 run, a veth into the run's collector namespace);
// - mirror session INT_MIRROR_SESSION to that port (`mirroring_add`);
// - `intWatch` entries for the watched egress ports (every fabric and host port, the fabric
//   ports, or the host ports), each pointing at the session;
// - `intReport`'s default `intEncap` with the report's addresses and Node ID:
//     Node ID   the switch id (its position in the fabric's switches, ToRs first; also its
//               BMv2 --device-id), so the collector names the switch from it
//     srcMac    the collector port's MAC in the switch-port plan (02:53:<switch id>:00:<port>)
//     dstMac    02:c0:<switch id, 16 bits>:00:01, the collector end of that switch's link
//     srcIp     10.255.<(id + 1) >> 8>.<(id + 1) & 255>
//     dstIp     INT_COLLECTOR_IP (10.255.255.254)
//     dstPort   the experiment's telemetry.int port (also the UDP source port)
// The addresses never meet the fabric's: reports leave through the collector port only.

import { hex2, switchPortMac } from '../../model/controlplane/address'
import type { ControlPlaneState, PortFacing, SwitchState } from '../../model/controlplane/types'

/** Mirror session of the INT clones; far above Floodgate's credit sessions (fabric port + 1). */
const INT_MIRROR_SESSION = 500
const INT_COLLECTOR_IP = '10.255.255.254'
/** BMv2 ports are 9 bits and 511 is simple_switch's drop port. */
const MAX_BMV2_PORT = 510

/** The v1model programs' INT names (include/int_egress.p4, inside MyEgress), as simple_switch_CLI takes them. */
const INT_NAMES = {
  intWatch: 'MyEgress.intWatch',
  intPostcard: 'MyEgress.intPostcard',
  intReport: 'MyEgress.intReport',
  intEncap: 'MyEgress.intEncap',
  intSeq: 'MyEgress.intSeq',
} as const

export type IntWatchPorts = 'all' | 'fabric' | 'hosts'

/** An experiment's telemetry.int (spec IntSpec) as it stands. */
export interface IntOptions {
  /** UDP destination port of the reports. */
  port: number
  /** Which egress ports report. Default 'all'. */
  watch?: IntWatchPorts
}

export interface IntSwitchPlan {
  switch: string
  /** Telemetry Report Node ID: the switch id. */
  nodeId: number
  /** BMv2 port toward the collector. */
  port: number
  session: number
  /** Fabric ports whose egress packets report, ascending. */
  watch: number[]
  srcMac: string
  dstMac: string
  srcIp: string
  dstIp: string
  udpPort: number
}

export interface IntPlan {
  udpPort: number
  watch: IntWatchPorts
  collectorIp: string
  session: number
  /** In the state's switch order. */
  switches: IntSwitchPlan[]
}

const WATCHED: Record<IntWatchPorts, readonly PortFacing[]> = { all: ['host', 'down', 'up'], fabric: ['down', 'up'], hosts: ['host'] }

/** The collector end's MAC of switch `id`'s INT link. */
function intCollectorMac(id: number): string {
  return ['02', 'c0', hex2(id >> 8), hex2(id & 0xff), '00', '01'].join(':')
}

function intSwitchIp(id: number): string {
  const n = id + 1
  if (n > 0xfeff) throw new RangeError(`switch id ${id} does not fit the INT address plan (10.255.0.1 .. 10.255.254.255)`)
  return `10.255.${n >> 8}.${n & 0xff}`
}

function planSwitch(sw: SwitchState, udpPort: number, watch: IntWatchPorts): IntSwitchPlan {
  const port = sw.ports.reduce((m, p) => Math.max(m, p.port), -1) + 1
  if (port > MAX_BMV2_PORT) throw new RangeError(`${sw.name}: no BMv2 port left for the INT collector after port ${port - 1}`)
  return {
    switch: sw.name,
    nodeId: sw.switchId,
    port,
    session: INT_MIRROR_SESSION,
    watch: sw.ports.filter((p) => WATCHED[watch].includes(p.facing)).map((p) => p.port).sort((a, b) => a - b),
    srcMac: switchPortMac(sw.switchId, port),
    dstMac: intCollectorMac(sw.switchId),
    srcIp: intSwitchIp(sw.switchId),
    dstIp: INT_COLLECTOR_IP,
    udpPort,
  }
}

/** Every switch's INT configuration. */
export function intPlan(state: ControlPlaneState, opts: IntOptions): IntPlan {
  const udpPort = opts.port
  if (!Number.isInteger(udpPort) || udpPort < 1 || udpPort > 65535) throw new RangeError(`INT UDP port ${udpPort} is not 1-65535`)
  const watch = opts.watch ?? 'all'
  return { udpPort, watch, collectorIp: INT_COLLECTOR_IP, session: INT_MIRROR_SESSION, switches: state.switches.map((s) => planSwitch(s, udpPort, watch)) }
}

export function intSwitchPlan(plan: IntPlan, name: string): IntSwitchPlan {
  const p = plan.switches.find((s) => s.switch === name)
  if (!p) throw new Error(`the INT plan has no switch '${name}'`)
  return p
}

/** Node ID → switch name, as the collector names series. */
export function intNodeNames(plan: IntPlan): Map<number, string> {
  return new Map(plan.switches.map((s) => [s.nodeId, s.switch]))
}

/**
 * The simple_switch_CLI commands of one switch: the mirror session first, then the watched
 * ports, then the report's addresses. `port` maps a fabric port to its BMv2 port (identity by default).
 */
export function intCliCommands(p: IntSwitchPlan, port: (fabricPort: number) => number = (x) => x): string[] {
  const watched = p.watch.map(port)
  if (watched.includes(p.port)) throw new Error(`${p.switch}: BMv2 port ${p.port} is both a fabric port and the INT collector port`)
  return [
    `mirroring_add ${p.session} ${p.port}`,
    ...watched.map((q) => `table_add ${INT_NAMES.intWatch} ${INT_NAMES.intPostcard} ${q} => ${p.session}`),
    `table_set_default ${INT_NAMES.intReport} ${INT_NAMES.intEncap} ${p.srcMac} ${p.dstMac} ${p.srcIp} ${p.dstIp} ${p.udpPort} ${p.nodeId}`,
  ]
}
