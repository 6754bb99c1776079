// A BMv2 fabric spread over several switch hosts, from the testbed's mapping: which host runs
// which switches (a fabric host goes with its ToR), the namespaces and interface names on each,
// and a VXLAN tunnel for every switch-to-switch link whose ends are on different hosts (as
// containerlab's multi-host labs join nodes on different machines). Pure planning: the names
// are planNetns's, so a one-host mapping gives exactly the single-host layout's interfaces.
//
// Per host i of the mapping: namespace `P s<i>` holds the switch ports of its switches, `P h<n>`
// each of its fabric hosts. A cross-host link's ends are VXLAN interfaces named like any switch
// port (`P<switch><port>`): made in the host's own namespace (where the hosts' network is, and
// where the tunnel's UDP socket stays) and moved into `P s<i>`.
import type { Bmv2Mapping } from '../../../contract/testbed-mapping'
import type { ControlPlaneState } from '../../controlplane'
import { planNetns, type NetnsPlan, type PlannedHost, type PlannedLink, type PlannedSwitch } from '../shared/netns'

/** One end of a fabric link, as the cabling check names it. */
export interface LinkEnd {
  /** Switch or fabric host name. */
  node: string
  /** The switch's port number; null for a fabric host's eth0. */
  port: number | null
  /** Testbed host, namespace and interface holding this end. */
  host: string
  ns: string
  ifname: string
}

export interface FabricCable {
  /** `upper-lower` as the topology names links (parallel links: the port pair tells them apart). */
  name: string
  a: LinkEnd
  b: LinkEnd
  /** Ends on different testbed hosts: carried by a tunnel. */
  tunnel?: { vni: number }
}

export interface PlannedTunnel {
  ifname: string
  vni: number
  local: string
  remote: string
  udpPort: number
  /** The testbed host at the other end. */
  peer: string
}

export interface HostPart {
  /** The testbed host. */
  host: string
  tunnelAddress: string
  switchNs: string
  switches: PlannedSwitch[]
  hosts: PlannedHost[]
  /** veth pairs inside this host (switch-switch, switch-host). */
  veths: PlannedLink[]
  tunnels: PlannedTunnel[]
}

export interface MultiHostPlan {
  prefix: string
  parts: HostPart[]
  cables: FabricCable[]
}

export interface MappedHost {
  name: string
  role: string
  address: string
}

/** Problems of a mapping against a fabric and a testbed, each naming what is wrong. Empty: it fits. */
export function mappingProblems(state: ControlPlaneState, mapping: Bmv2Mapping, testbedHosts: readonly MappedHost[]): string[] {
  const out: string[] = []
  const switches = new Set(state.switches.map((s) => s.name))
  const placed = new Map<string, string>()
  const seenHosts = new Set<string>()
  for (const [i, m] of mapping.hosts.entries()) {
    const th = testbedHosts.find((h) => h.name === m.host)
    if (!th) out.push(`hosts[${i}]: the testbed has no host '${m.host}' (its hosts: ${testbedHosts.map((h) => h.name).join(', ') || 'none'})`)
    else if (th.role !== 'switch-host') out.push(`hosts[${i}]: '${m.host}' is a ${th.role} host; switches run on a 'switch-host'`)
    else if (!m.tunnelAddress && !/^\d{1,3}(\.\d{1,3}){3}$/.test(th.address) && mapping.hosts.length > 1) {
      out.push(`hosts[${i}] (${m.host}): its SSH address ${th.address} is not an IPv4 address; give tunnelAddress, the address the other hosts reach it at`)
    }
    if (seenHosts.has(m.host)) out.push(`hosts[${i}]: '${m.host}' is listed twice; list each host once with all its switches`)
    seenHosts.add(m.host)
    for (const s of m.switches) {
      if (!switches.has(s)) out.push(`hosts[${i}] (${m.host}): the fabric has no switch '${s}' (its switches: ${[...switches].join(', ')})`)
      else if (placed.has(s)) out.push(`switch ${s} is placed on both ${placed.get(s)} and ${m.host}; place it on one host`)
      else placed.set(s, m.host)
    }
  }
  const unplaced = [...switches].filter((s) => !placed.has(s))
  if (unplaced.length) out.push(`switch${unplaced.length > 1 ? 'es' : ''} ${unplaced.join(', ')} ${unplaced.length > 1 ? 'are' : 'is'} on no host: add ${unplaced.length > 1 ? 'them' : 'it'} to a host of the mapping`)
  return out
}

/** The per-host layout of a mapped fabric. Throws with every problem of the mapping (mappingProblems). */
export function planMultiHost(state: ControlPlaneState, prefix: string, mapping: Bmv2Mapping, testbedHosts: readonly MappedHost[]): MultiHostPlan {
  const problems = mappingProblems(state, mapping, testbedHosts)
  if (problems.length) throw new Error(`the testbed's mapping does not fit this fabric: ${problems.join('; ')}`)
  const flat: NetnsPlan = planNetns(state, prefix)
  const hostOf = new Map<string, number>()
  mapping.hosts.forEach((m, i) => m.switches.forEach((s) => hostOf.set(s, i)))
  const parts: HostPart[] = mapping.hosts.map((m, i) => ({
    host: m.host,
    tunnelAddress: m.tunnelAddress ?? testbedHosts.find((h) => h.name === m.host)!.address,
    switchNs: `${prefix}s${i}`,
    switches: flat.switches.filter((s) => hostOf.get(s.name) === i),
    hosts: flat.hosts.filter((h) => hostOf.get(h.tor) === i),
    veths: [],
    tunnels: [],
  }))
  const portOwner = new Map<string, { sw: PlannedSwitch; port: number }>()
  for (const sw of flat.switches) for (const p of sw.ports) portOwner.set(p.ifname, { sw, port: p.port })
  const cables: FabricCable[] = []
  let vni = mapping.vniBase
  for (const l of flat.links) {
    const a = portOwner.get(l.a)!
    const ia = hostOf.get(a.sw.name)!
    const pa = parts[ia]
    const endA: LinkEnd = { node: a.sw.name, port: a.port, host: pa.host, ns: pa.switchNs, ifname: l.a }
    if (l.hostNs) {
      const fh = flat.hosts.find((h) => h.ns === l.hostNs)!
      pa.veths.push(l)
      cables.push({ name: `${a.sw.name}-${fh.name}`, a: endA, b: { node: fh.name, port: null, host: pa.host, ns: fh.ns, ifname: 'eth0' } })
      continue
    }
    const b = portOwner.get(l.b)!
    const ib = hostOf.get(b.sw.name)!
    const pb = parts[ib]
    const endB: LinkEnd = { node: b.sw.name, port: b.port, host: pb.host, ns: pb.switchNs, ifname: l.b }
    const [upper, lower] = a.sw.index > b.sw.index ? [endA, endB] : [endB, endA]
    const name = `${upper.node}-${lower.node}`
    if (ia === ib) {
      pa.veths.push(l)
      cables.push({ name, a: upper, b: lower })
      continue
    }
    pa.tunnels.push({ ifname: l.a, vni, local: pa.tunnelAddress, remote: pb.tunnelAddress, udpPort: mapping.udpPort, peer: pb.host })
    pb.tunnels.push({ ifname: l.b, vni, local: pb.tunnelAddress, remote: pa.tunnelAddress, udpPort: mapping.udpPort, peer: pa.host })
    cables.push({ name, a: upper, b: lower, tunnel: { vni } })
    vni++
  }
  return { prefix, parts, cables }
}

/** `ip -batch -` input in the host's own namespace: the namespaces, then each tunnel made here and moved into the switch namespace. */
export function hostRootBatch(p: HostPart): string {
  const out = [`netns add ${p.switchNs}`, ...p.hosts.map((h) => `netns add ${h.ns}`)]
  for (const t of p.tunnels) {
    // nolearning: each tunnel has one remote end, so no flooding table is needed.
    out.push(`link add ${t.ifname} type vxlan id ${t.vni} local ${t.local} remote ${t.remote} dstport ${t.udpPort} nolearning`, `link set ${t.ifname} netns ${p.switchNs}`)
  }
  return out.join('\n') + '\n'
}

/** `ip -n SWITCH_NS -batch -` input: the local veth pairs (host ends into their namespaces), every switch port up. */
export function hostLinksBatch(p: HostPart): string {
  const out = ['link set lo up']
  for (const l of p.veths) out.push(l.hostNs ? `link add ${l.a} type veth peer name ${l.b} netns ${l.hostNs}` : `link add ${l.a} type veth peer name ${l.b}`)
  for (const n of partIfnames(p)) out.push(`link set dev ${n} up`)
  return out.join('\n') + '\n'
}

/** Every interface of the host's switch namespace: its switches' ports (veth or tunnel). */
export function partIfnames(p: HostPart): string[] {
  return p.switches.flatMap((s) => s.ports.map((x) => x.ifname))
}

/** The mapping as people read it: per host, its switches, namespaces and interfaces, and each tunnel. */
export function describePlan(plan: MultiHostPlan): string[] {
  const out: string[] = []
  for (const p of plan.parts) {
    out.push(`${p.host}: switches ${p.switches.map((s) => s.name).join(', ')} in namespace ${p.switchNs}; fabric hosts ${p.hosts.map((h) => `${h.name} (${h.ns})`).join(', ') || 'none'}; ${p.veths.length} veth pairs, ${p.tunnels.length} VXLAN tunnels from ${p.tunnelAddress}`)
  }
  return out
}
