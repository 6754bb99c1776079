// The topology of a BMv2 run on its switch host, as plain network namespaces and veth pairs
// (no Mininet): pure planning (names, addresses, `ip -batch` input) plus the two fixed
// shell scripts that tear a run's namespaces down and verify that nothing is left.
//
// Layout, for a run with prefix P (`p4<run id base 36><2 random chars>-`):
// - one namespace `P sw` holding every switch port: all simple_switch processes run in it,
//   so their thrift servers (which always listen on 0.0.0.0) are reachable only from inside
//   that namespace, never from the network, and thrift ports cannot collide with another run;
// - one namespace `P h<i>` per fabric host i, its interface `eth0`, its address /32, and a
//   default route through a link-local gateway whose MAC is its ToR port's MAC (a static,
//   permanent neighbour entry), so the host never ARPs and every packet goes to its ToR;
// - a veth pair per fabric link: switch ports are `P<switch index><port>` (two base-36
//   digits each), at most 15 characters (IFNAMSIZ).
// - with INT on (telemetry.int), one namespace `P col` for the collector (the agent's relay
//   mode binds the report port there): a veth pair per switch from the switch's collector port
//   (`P<switch index><port>`, the BMv2 port after its last fabric port) to `P c<switch index>`
//   in `P col`. The collector address (controlplane/int.ts) sits on `lo` there; each collector
//   end has the MAC the switch writes as the report's destination, a /32 route and a permanent
//   neighbour entry for its switch's report source, so reverse-path filtering accepts the
//   reports and nothing ARPs into a switch; IPv6 is off (no router solicitations into the switches).
// Deleting the namespaces deletes every veth; the teardown script also deletes any interface
// whose name starts with P left in the root namespace (a bring-up cut short), and kills what
// still runs inside the run's namespaces. Everything above, the collector's namespace and
// links included, is named with P, so the teardown and verify scripts below find it by that
// prefix alone: there is no per-kind list to keep in step with the plan.
import type { ControlPlaneState, IntPlan } from '../../controlplane'

/** Linux interface names hold at most 15 characters (IFNAMSIZ 16 with the NUL). */
export const IFNAMSIZ = 15
/** The gateway every host's default route goes through (never on the wire: the neighbour entry is static). */
export const HOST_GATEWAY = '169.254.1.1'
export const FIRST_THRIFT_PORT = 9090

const PREFIX_RE = /^p4[0-9a-z]{1,6}-$/

export function runPrefix(runId: number, nonce: string): string {
  if (!Number.isSafeInteger(runId) || runId < 0) throw new RangeError(`bad run id ${runId}`)
  if (!/^[0-9a-z]{2}$/.test(nonce)) throw new RangeError(`bad nonce '${nonce}'`)
  const p = `p4${runId.toString(36)}${nonce}-`
  if (!PREFIX_RE.test(p)) throw new RangeError(`run id ${runId} is too large for a short interface prefix`)
  return p
}

export function checkPrefix(prefix: string): string {
  if (!PREFIX_RE.test(prefix)) throw new RangeError(`'${prefix}' is not a run prefix`)
  return prefix
}

function b36(n: number, width: number): string {
  const s = n.toString(36)
  if (s.length > width) throw new RangeError(`${n} does not fit in ${width} base-36 digits`)
  return s.padStart(width, '0')
}

export interface PlannedSwitch {
  name: string
  /** Position in the control plane's switches (ToRs first). */
  index: number
  deviceId: number
  thriftPort: number
  /** BMv2 port number → interface name in the switch namespace. */
  ports: Array<{ port: number; ifname: string; facing: string; peer: string }>
  /** With INT on: the BMv2 port toward the collector and its interface (in the switch namespace). */
  intPort?: { port: number; ifname: string }
}

/** One switch's link into the collector namespace. */
export interface PlannedCollectorLink {
  switch: string
  /** The switch end (in the switch namespace). */
  switchIf: string
  /** The collector end (in the collector namespace) and its MAC (the reports' destination MAC). */
  ifname: string
  mac: string
  /** The switch's report source address and MAC (a route and a permanent neighbour entry). */
  switchIp: string
  switchMac: string
}

/** The INT collector's side of a run (INT on only). */
export interface PlannedCollector {
  ns: string
  /** The address reports go to (on lo in ns) and their UDP port. */
  ip: string
  udpPort: number
  links: PlannedCollectorLink[]
}

export interface PlannedHost {
  index: number
  name: string
  ns: string
  ifname: 'eth0'
  ip: string
  mac: string
  /** MAC of the ToR port the host hangs off (its gateway's MAC). */
  gatewayMac: string
  tor: string
  torPort: number
}

export interface PlannedLink {
  /** The switch end (in the switch namespace). */
  a: string
  /** The other end: a switch port (switch namespace) or `eth0` in `hostNs`. */
  b: string
  hostNs?: string
}

export interface NetnsPlan {
  prefix: string
  switchNs: string
  switches: PlannedSwitch[]
  hosts: PlannedHost[]
  links: PlannedLink[]
  /** With INT on: the collector namespace and a link per switch into it. */
  collector?: PlannedCollector
}

export function switchIfname(prefix: string, switchIndex: number, port: number): string {
  const n = `${prefix}${b36(switchIndex, 2)}${b36(port, 2)}`
  if (n.length > IFNAMSIZ) throw new RangeError(`interface name ${n} is longer than ${IFNAMSIZ} characters`)
  return n
}

export function collectorIfname(prefix: string, switchIndex: number): string {
  const n = `${prefix}c${b36(switchIndex, 2)}`
  if (n.length > IFNAMSIZ) throw new RangeError(`interface name ${n} is longer than ${IFNAMSIZ} characters`)
  return n
}

/** The namespaces, veths and addresses of a fabric, from its control-plane state (and its INT plan when INT is on). */
export function planNetns(state: ControlPlaneState, prefix: string, int?: IntPlan): NetnsPlan {
  checkPrefix(prefix)
  const switchNs = `${prefix}sw`
  const index = new Map(state.switches.map((s, i) => [s.name, i]))
  const hostNs = (i: number) => `${prefix}h${i}`
  const hostByName = new Map(state.hosts.map((h) => [h.name, h]))
  const switches: PlannedSwitch[] = state.switches.map((s, i) => ({
    name: s.name,
    index: i,
    deviceId: i,
    thriftPort: FIRST_THRIFT_PORT + i,
    ports: s.ports.map((p) => ({ port: p.port, ifname: switchIfname(prefix, i, p.port), facing: p.facing, peer: p.peer })),
  }))
  const links: PlannedLink[] = []
  for (const [i, s] of state.switches.entries()) {
    for (const p of s.ports) {
      if (p.facing === 'host') {
        const h = hostByName.get(p.peer)
        if (!h) throw new Error(`${s.name} port ${p.port}: host ${p.peer} is not in the control plane`)
        links.push({ a: switchIfname(prefix, i, p.port), b: 'eth0', hostNs: hostNs(h.index) })
        continue
      }
      const j = index.get(p.peer)
      if (j === undefined) throw new Error(`${s.name} port ${p.port}: peer ${p.peer} is not a switch of the fabric`)
      // Each switch-switch link once, from its lower-indexed end.
      if (i < j) links.push({ a: switchIfname(prefix, i, p.port), b: switchIfname(prefix, j, p.peerPort) })
    }
  }
  const hosts: PlannedHost[] = state.hosts.map((h) => {
    const tor = state.switches[index.get(h.tor) ?? -1]
    const port = tor?.ports.find((p) => p.port === h.torPort)
    if (!tor || !port) throw new Error(`host ${h.name}: ToR ${h.tor} port ${h.torPort} is not in the control plane`)
    return { index: h.index, name: h.name, ns: hostNs(h.index), ifname: 'eth0', ip: h.ip, mac: h.mac, gatewayMac: port.mac, tor: h.tor, torPort: h.torPort }
  })
  let collector: PlannedCollector | undefined
  if (int) {
    collector = { ns: `${prefix}col`, ip: int.collectorIp, udpPort: int.udpPort, links: [] }
    for (const s of switches) {
      const p = int.switches[s.index]
      if (!p || p.switch !== s.name) throw new Error(`the INT plan does not match the fabric at switch ${s.name}`)
      s.intPort = { port: p.port, ifname: switchIfname(prefix, s.index, p.port) }
      collector.links.push({ switch: s.name, switchIf: s.intPort.ifname, ifname: collectorIfname(prefix, s.index), mac: p.dstMac, switchIp: p.srcIp, switchMac: p.srcMac })
    }
  }
  const plan: NetnsPlan = { prefix, switchNs, switches, hosts, links, ...(collector ? { collector } : {}) }
  const names = new Set<string>()
  for (const n of [...switchNsIfnames(plan), ...(collector?.links.map((l) => l.ifname) ?? [])]) {
    if (names.has(n)) throw new Error(`interface name ${n} is used twice`)
    names.add(n)
  }
  return plan
}

/** Every interface of the switch namespace: the fabric ports, then the collector ports. */
export function switchNsIfnames(plan: NetnsPlan): string[] {
  return [...plan.switches.flatMap((s) => s.ports.map((p) => p.ifname)), ...plan.switches.flatMap((s) => (s.intPort ? [s.intPort.ifname] : []))]
}

/** `ip -batch -` input (root namespace): every namespace of the run. */
export function namespacesBatch(plan: NetnsPlan): string {
  return [`netns add ${plan.switchNs}`, ...plan.hosts.map((h) => `netns add ${h.ns}`), ...(plan.collector ? [`netns add ${plan.collector.ns}`] : [])].join('\n') + '\n'
}

/** `ip -n SWITCH_NS -batch -` input: every veth pair, the host ends moved into their namespaces, switch ends up. */
export function linksBatch(plan: NetnsPlan): string {
  const out: string[] = ['link set lo up']
  for (const l of plan.links) {
    out.push(l.hostNs ? `link add ${l.a} type veth peer name ${l.b} netns ${l.hostNs}` : `link add ${l.a} type veth peer name ${l.b}`)
  }
  // The collector ends stay down here: collectorBatch brings them up once IPv6 is off there.
  for (const l of plan.collector?.links ?? []) out.push(`link add ${l.switchIf} type veth peer name ${l.ifname} netns ${plan.collector!.ns}`)
  for (const n of switchNsIfnames(plan)) out.push(`link set dev ${n} up`)
  return out.join('\n') + '\n'
}

/** `ip -n COLLECTOR_NS -batch -` input: the collector address on lo, each collector end's MAC, route and neighbour, up. */
export function collectorBatch(c: PlannedCollector): string {
  const out = ['link set lo up', `addr add ${c.ip}/32 dev lo`]
  for (const l of c.links) {
    out.push(
      `link set dev ${l.ifname} address ${l.mac}`,
      `link set dev ${l.ifname} up`,
      `route replace ${l.switchIp}/32 dev ${l.ifname}`,
      `neigh replace ${l.switchIp} lladdr ${l.switchMac} dev ${l.ifname} nud permanent`,
    )
  }
  return out.join('\n') + '\n'
}

/** `ip -n HOST_NS -batch -` input for one host. */
export function hostBatch(h: PlannedHost): string {
  return (
    [
      'link set lo up',
      `link set dev eth0 address ${h.mac}`,
      `addr add ${h.ip}/32 dev eth0`,
      'link set dev eth0 up',
      `neigh replace ${HOST_GATEWAY} lladdr ${h.gatewayMac} dev eth0 nud permanent`,
      `route replace default via ${HOST_GATEWAY} dev eth0 onlink`,
    ].join('\n') + '\n'
  )
}

/** The `-i PORT@IFNAME` arguments of one switch. */
export function switchInterfaceArgs(s: PlannedSwitch): string[] {
  const ports = s.intPort ? [...s.ports, s.intPort] : s.ports
  return ports.flatMap((p) => ['-i', `${p.port}@${p.ifname}`])
}

/**
 * Teardown of everything named with the prefix ($1): processes inside the run's namespaces
 * are killed, the namespaces deleted (which deletes their veths), interfaces left in the root
 * namespace deleted, the nanomsg IPC files removed. Best effort: every step is tried.
 */
export const TEARDOWN_SCRIPT = `p=$1
case $p in p4*-) ;; *) echo "p4lab: refusing prefix '$p'" >&2; exit 2 ;; esac
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  case $ns in
    "$p"*)
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
      ip netns del "$ns" 2>/dev/null || echo "p4lab: cannot delete namespace $ns" >&2 ;;
  esac
done
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//'); do
  case $l in "$p"*) ip link del "$l" 2>/dev/null || echo "p4lab: cannot delete interface $l" >&2 ;; esac
done
rm -f /tmp/"$p"*.ipc
exit 0`

/**
 * What is left of a run ($1 = prefix): `ns NAME`, `link NAME` and `pid PID` (a process in
 * one of its namespaces) lines. Nothing printed means clean.
 */
export const VERIFY_SCRIPT = `p=$1
case $p in p4*-) ;; *) echo "p4lab: refusing prefix '$p'" >&2; exit 2 ;; esac
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  case $ns in
    "$p"*) echo "ns $ns"; for pid in $(ip netns pids "$ns" 2>/dev/null); do echo "pid $pid"; done ;;
  esac
done
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//'); do
  case $l in "$p"*) echo "link $l" ;; esac
done
for f in /tmp/"$p"*.ipc; do [ -e "$f" ] && echo "file $f"; done
exit 0`

export interface Leftovers {
  namespaces: string[]
  links: string[]
  pids: number[]
  files: string[]
  /** Live processes of the run's process groups, by process name. */
  processes: Array<{ name: string; pids: number[] }>
}

export function parseLeftovers(text: string): Omit<Leftovers, 'processes'> {
  const out = { namespaces: [] as string[], links: [] as string[], pids: [] as number[], files: [] as string[] }
  for (const line of text.split('\n')) {
    const [kind, ...rest] = line.trim().split(' ')
    const v = rest.join(' ')
    if (kind === 'ns') out.namespaces.push(v)
    else if (kind === 'link') out.links.push(v)
    else if (kind === 'pid' && /^\d+$/.test(v)) out.pids.push(Number(v))
    else if (kind === 'file') out.files.push(v)
  }
  return out
}

export function describeLeftovers(l: Leftovers): string | null {
  const parts: string[] = []
  if (l.processes.length) parts.push(`processes ${l.processes.map((p) => `${p.name} (${p.pids.join(', ')})`).join('; ')}`)
  if (l.pids.length) parts.push(`pids in the run's namespaces ${l.pids.join(', ')}`)
  if (l.namespaces.length) parts.push(`namespaces ${l.namespaces.join(', ')}`)
  if (l.links.length) parts.push(`interfaces ${l.links.join(', ')}`)
  if (l.files.length) parts.push(`files ${l.files.join(', ')}`)
  return parts.length ? parts.join('; ') : null
}
