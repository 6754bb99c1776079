// From a fabric graph and a scheme, every switch's forwarding state, computed once as data.
// The renderers (CLI, bfrt_python, simulator) only format what this returns.

import { distancesTo, isUpPort, peer, shortestNextHops, type Fabric } from '../../model/topology'
import { hostMac, switchPortMac, torOctets } from '../../model/controlplane/address'
import { probeReplication, type SpineScope } from '../../model/controlplane/replication'
import { isSchemeName, SCHEME_NAMES } from '../../schemes'
import { DEFAULT_PARAMS } from './defaults'
import { schemeModule } from './program'
import {
  type ControlPlaneState,
  type CpScheme,
  type HostAddress,
  type PortInfo,
  type SchemeParams,
  type SwitchState,
  type TorAddress,
} from '../../model/controlplane/types'

export interface ComputeOptions {
  /** Probe replication at spines; 'all-others' is DHLB's rule taken literally (see replication.ts). */
  spineScope?: SpineScope
}

export function computeControlPlane(
  f: Fabric,
  scheme: CpScheme,
  params: Partial<SchemeParams> = {},
  opts: ComputeOptions = {},
): ControlPlaneState {
  if (!isSchemeName(scheme)) throw new Error(`unknown scheme '${scheme}'; expected one of ${SCHEME_NAMES.join(', ')}`)
  const p = { ...DEFAULT_PARAMS, ...params } as SchemeParams
  const mod = schemeModule(scheme)

  const octets = torOctets(f)
  const torIndexOf = new Map<number, number>(f.tors.map((t, i) => [t, i]))
  const tors: TorAddress[] = f.tors.map((t, i) => ({
    index: i,
    name: f.nodes[t].name,
    node: t,
    pod: f.nodes[t].pod,
    subnet: `10.${octets[i].a}.${octets[i].b}.0`,
    prefixLen: 24,
  }))
  const hostIndexOf = new Map<number, number>(f.hosts.map((h, i) => [h, i]))
  const hostsOnTor = new Map<number, number>()
  const hosts: HostAddress[] = f.hosts.map((h, i) => {
    const tor = f.torOfHost[i]
    const k = hostsOnTor.get(tor) ?? 0
    hostsOnTor.set(tor, k + 1)
    if (k + 1 > 254) throw new Error(`ToR ${f.nodes[tor].name} has more than 254 hosts`)
    const t = torIndexOf.get(tor)!
    const ip = `10.${octets[t].a}.${octets[t].b}.${k + 1}`
    return {
      index: i,
      name: f.nodes[h].name,
      ip,
      mac: hostMac(ip),
      tor: f.nodes[tor].name,
      torIndex: t,
      torPort: peer(f, h, 0).port,
    }
  })

  // Hop distances to every ToR, once: the next-hop sets of every switch come from them.
  const distToTor = f.tors.map((t) => distancesTo(f, t))
  const base = { scheme, params: p, fabricKind: f.kind, hosts, tors }

  const switches: SwitchState[] = f.switches.map((node, si) => {
    const n = f.nodes[node]
    // 0-based, ToRs first: a ToR's switch id is its ToR index. floodgate.p4 relies on it
    // (toHost sets dstTor = switchId); p4/README.md states it; asserted here.
    const switchId = si
    const torIndex = torIndexOf.get(node) ?? -1
    if (torIndex >= 0 && switchId !== torIndex) {
      throw new Error(
        `switch numbering: ToR ${n.name} would get switch id ${switchId} but it is ToR ${torIndex}; a ToR's switch id must be its ToR index ` +
          `(floodgate.p4 counts a ToR's own hosts' traffic under dstTor = switch id), so Fabric.switches must list the ToRs first, in Fabric.tors order`,
      )
    }
    const ports: PortInfo[] = n.ports.map((_, port) => {
      const pe = peer(f, node, port)
      const other = f.nodes[pe.node]
      return {
        port,
        facing: other.role === 'host' ? 'host' : isUpPort(f, node, port) ? 'up' : 'down',
        peer: other.name,
        peerPort: pe.port,
        peerNode: pe.node,
        linkName: pe.link.name,
        bps: pe.link.bps,
        delayNs: pe.link.delayNs,
        mac: switchPortMac(switchId, port),
      }
    })
    const hostRoutes = ports
      .filter((x) => x.facing === 'host')
      .map((x) => {
        const h = hosts[hostIndexOf.get(x.peerNode)!]
        return { host: h.index, name: h.name, ip: h.ip, mac: h.mac, port: x.port }
      })
    const nextHops = f.tors
      .map((t, ti) => ({ t, ti }))
      .filter(({ t }) => t !== node)
      .map(({ t, ti }) => ({ dstTor: ti, dstTorName: f.nodes[t].name, ports: shortestNextHops(f, node, distToTor[ti]) }))
      // A partitioned fabric leaves some ToRs unreachable: no group, the packet is dropped.
      .filter((g) => g.ports.length > 0)
      .map((g, i) => ({ ...g, groupId: i + 1 }))
    const repl = mod.probes ? probeReplication(f, node, mod.probes, opts.spineScope) : { groups: [], perPort: [] }
    const sw: SwitchState = {
      node,
      name: n.name,
      role: n.role as SwitchState['role'],
      switchId,
      torIndex,
      pod: n.pod,
      ports,
      hostRoutes,
      nextHops,
      mcastGroups: repl.groups,
      probeReplication: repl.perPort,
      registers: [],
      queues: ports.map((x) => ({ port: x.port, bps: x.bps, depthPackets: p.queuePackets })),
    }
    sw.registers = mod.registers(sw, base)
    return sw
  })
  return { ...base, switches }
}

/** The switch of a state by name or node id; throws with the names it has otherwise. */
export function switchOf(state: ControlPlaneState, which: string | number): SwitchState {
  const s = state.switches.find((x) => x.name === which || x.node === which)
  if (!s) throw new Error(`no switch '${which}'; this fabric has ${state.switches.map((x) => x.name).join(', ')}`)
  return s
}
