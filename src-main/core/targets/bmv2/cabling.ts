// Bringing a mapped BMv2 fabric up on its hosts (in parallel, with progress per host) and the
// cabling check: before anything is deployed, every link carries a test frame end to end.
//
// The check runs one listener per namespace holding link ends (python3's raw AF_PACKET sockets,
// standard library only: the switch host already needs python3 for the agent). Each listener
// opens every interface of its namespace, says it is ready, waits for the `go` file, sends a
// frame of EtherType 0x88B5 (IEEE 802 local experimental) carrying `p4lab-cable TAG NS IF` on
// each interface three times, and reports every marker it receives until the `stop` file. A
// frame that arrives where the fabric says the link's other end is proves that cable; one that
// arrives elsewhere names the wrong cable; none at all names the link that carried nothing.
import type { Bmv2Mapping } from '../../../contract/testbed-mapping'
import type { ControlPlaneState } from '../../controlplane'
import type { RunTestbed, RunTestbedHost, TargetFacts } from '../driver'
import { HOST_NS_SCRIPT, SWITCH_NS_SCRIPT } from './steps'
import { describeLeftovers, hostBatch } from '../shared/netns'
import { PATH_PREFIX, WITH_PATH, sleep, type RemoteRun } from '../shared/remote'
import { onEveryHost } from './hosts'
import { describePlan, hostLinksBatch, hostRootBatch, partIfnames, planMultiHost, type FabricCable, type HostPart, type LinkEnd, type MultiHostPlan } from './multihost'

export const CABLE_ETHERTYPE = 0x88b5

const LISTENER = `import os, socket, sys, time
d, ns, tag = sys.argv[1:4]
ETH = ${CABLE_ETHERTYPE}
socks = {}
for i in sorted(os.listdir('/sys/class/net')):
    if i == 'lo':
        continue
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH))
    s.bind((i, ETH))
    s.setblocking(False)
    socks[i] = s
seen = set()
def recv():
    for i, s in socks.items():
        while True:
            try:
                f, addr = s.recvfrom(2048)
            except BlockingIOError:
                break
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            w = f[14:].split(b'\\0')[0].decode('ascii', 'replace').split(' ')
            if len(w) == 4 and w[0] == 'p4lab-cable' and w[1] == tag and (i, w[2], w[3]) not in seen:
                seen.add((i, w[2], w[3]))
                print('rx %s %s %s' % (i, w[2], w[3]), flush=True)
def until(name, limit):
    end = time.time() + limit
    while not os.path.exists(os.path.join(d, name)):
        if time.time() > end:
            return False
        recv()
        time.sleep(0.02)
    return True
open(os.path.join(d, 'ready-' + ns), 'w').close()
print('listening %d' % len(socks), flush=True)
if not until('go', 120):
    print('error: no go signal within 120 s', flush=True)
    sys.exit(3)
for r in range(3):
    for i, s in socks.items():
        p = ('p4lab-cable %s %s %s' % (tag, ns, i)).encode().ljust(46, b'\\0')
        s.send(b'\\xff' * 6 + b'\\x02\\x00\\x00\\x00\\x00\\x01' + ETH.to_bytes(2, 'big') + p)
    until('never', 0.1)
until('stop', 120)
recv()
print('done', flush=True)
`

/** On one host: the listener (stdin) run in each namespace of "$@", in the background, then their outputs. */
const HOST_SCRIPT = `${PATH_PREFIX}
d=$1; tag=$2; shift 2
rm -rf "$d" && mkdir -p "$d" && cat > "$d/listener.py" || exit 1
for ns; do ip netns exec "$ns" python3 "$d/listener.py" "$d" "$ns" "$tag" > "$d/out-$ns" 2>&1 & done
wait
for ns; do echo "ns $ns"; cat "$d/out-$ns"; done
rm -rf "$d"
exit 0`

export interface CableResult {
  cable: FabricCable
  ok: boolean
  /** What is wrong with it, naming both ends (null when ok). */
  problem: string | null
}

export interface CablingReport {
  /** Every link carried a frame between its two ends, and only there. */
  ok: boolean
  /** False when a listener could not run: then nothing is known of the cables it should have heard. */
  looked: boolean
  cables: CableResult[]
  /** One line per problem; the first names a wrong cable as "leaf2 port 3 reaches spine1 port 5, expected spine0 port 2". */
  problems: string[]
}

export function endName(e: LinkEnd): string {
  return e.port === null ? `${e.node} eth0` : `${e.node} port ${e.port}`
}

const key = (host: string, ns: string, ifname: string) => `${host}\0${ns}\0${ifname}`

/** Compares what each listener heard with the fabric's cables. `heard` maps receiving end key → sender `ns ifname` pairs (same host unknown: ns names are unique per run). */
export function judgeCabling(plan: MultiHostPlan, heard: Map<string, Array<{ ns: string; ifname: string }>>, failedListeners: string[]): CablingReport {
  const byNsIf = new Map<string, LinkEnd>()
  for (const c of plan.cables) for (const e of [c.a, c.b]) byNsIf.set(`${e.ns}\0${e.ifname}`, e)
  const problems: string[] = []
  const cables: CableResult[] = []
  const failed = new Set(failedListeners)
  for (const c of plan.cables) {
    const issues: string[] = []
    for (const [me, peer] of [
      [c.a, c.b],
      [c.b, c.a],
    ] as const) {
      if (failed.has(`${me.host}\0${me.ns}`) || failed.has(`${peer.host}\0${peer.ns}`)) {
        issues.push(`${endName(me)}: could not look (the listener on ${me.host} in ${me.ns} or ${peer.host} in ${peer.ns} did not run)`)
        continue
      }
      const got = heard.get(key(me.host, me.ns, me.ifname)) ?? []
      const from = got.map((g) => byNsIf.get(`${g.ns}\0${g.ifname}`))
      const wrong = from.filter((f) => f !== peer)
      if (wrong.length) {
        issues.push(`${endName(me)} reaches ${wrong.map((w) => (w ? endName(w) : 'an interface outside the fabric')).join(' and ')}, expected ${endName(peer)}`)
      } else if (!from.length) {
        issues.push(`${endName(me)} received nothing, expected a frame from ${endName(peer)} (${me.host}: ${me.ifname} in ${me.ns}${c.tunnel ? `, VXLAN ${c.tunnel.vni} from ${peer.host}` : ''})`)
      }
    }
    cables.push({ cable: c, ok: issues.length === 0, problem: issues.length ? issues.join('; ') : null })
    problems.push(...issues)
  }
  // "reaches" lines first: a wrong cable explains the silence at its expected ends.
  problems.sort((x, y) => Number(y.includes(' reaches ')) - Number(x.includes(' reaches ')))
  return { ok: problems.length === 0, looked: failed.size === 0, cables, problems }
}

/** Parses a host script's output into what each end heard; listeners without a `done` line are failed. */
export function parseListeners(host: string, text: string, expectedNs: readonly string[]): { heard: Map<string, Array<{ ns: string; ifname: string }>>; failed: string[]; errors: string[] } {
  const heard = new Map<string, Array<{ ns: string; ifname: string }>>()
  const done = new Set<string>()
  const errors: string[] = []
  let ns = ''
  for (const line of text.split('\n')) {
    const w = line.trim().split(' ')
    if (w[0] === 'ns' && w.length === 2) ns = w[1]
    else if (w[0] === 'rx' && w.length === 4 && ns) {
      const k = key(host, ns, w[1])
      heard.set(k, [...(heard.get(k) ?? []), { ns: w[2], ifname: w[3] }])
    } else if (w[0] === 'done' && ns) done.add(ns)
    else if (line.trim() && !/^listening \d+$/.test(line.trim()) && ns) errors.push(`${host} ${ns}: ${line.trim()}`)
  }
  return { heard, failed: expectedNs.filter((n) => !done.has(n)).map((n) => `${host}\0${n}`), errors }
}

function partNamespaces(p: HostPart): string[] {
  return [p.switchNs, ...p.hosts.map((h) => h.ns)]
}

/** Runs fn for every part at once; a failure names its host, and waits for the others to settle first. */
async function eachHost(plan: MultiHostPlan, hostOf: (name: string) => RunTestbedHost, fn: (p: HostPart, h: RunTestbedHost) => Promise<void>): Promise<void> {
  const r = await Promise.allSettled(plan.parts.map((p) => fn(p, hostOf(p.host))))
  const bad = r.flatMap((x, i) => (x.status === 'rejected' ? [`${plan.parts[i].host}: ${(x.reason as Error).message}`] : []))
  if (bad.length) throw new Error(bad.join('; '))
}

/** Namespaces, veths and tunnels on every host of the plan, the hosts in parallel, each step a 'host.progress' event; `progress` hears each host's steps too. */
export async function bringUpMultiHost(run: RemoteRun, plan: MultiHostPlan, hostOf: (name: string) => RunTestbedHost, progress?: (host: string, step: string) => void): Promise<void> {
  await onEveryHost(run, 'cabling', plan.parts.map((p) => hostOf(p.host)), async (h, step) => {
    const p = plan.parts.find((x) => x.host === h.name)!
    run.touched.add(h.id)
    progress?.(p.host, 'tools')
    await step('tools', () => run.requireTools(h, ['ip', 'ethtool', 'python3']))
    run.ctx.log(h.name, `topology: switches ${p.switches.map((s) => s.name).join(', ')} in ${p.switchNs}, ${p.hosts.length} host namespaces, ${p.veths.length} veth pairs, ${p.tunnels.length} VXLAN tunnels (prefix ${plan.prefix})`)
    progress?.(p.host, 'namespaces')
    await step('namespaces', () => run.script(h, 'p4lab-netns', WITH_PATH, ['ip', '-batch', '-'], { stdin: hostRootBatch(p) }))
    progress?.(p.host, 'links')
    await step('links', async () => {
      await run.script(h, 'p4lab-links', SWITCH_NS_SCRIPT, [p.switchNs, ...partIfnames(p)], { stdin: hostLinksBatch(p) })
      for (const fh of p.hosts) await run.script(h, 'p4lab-host', HOST_NS_SCRIPT, [fh.ns], { stdin: hostBatch(fh) })
    })
    progress?.(p.host, 'up')
    run.ctx.event?.('deploy', { part: 'topology', host: p.host, prefix: plan.prefix, switchNs: p.switchNs, veths: p.veths.length, tunnels: p.tunnels.length })
  })
}

export interface CablingOptions {
  /** A folder on each host for the listeners' files (made and removed by the check). */
  dir: (h: RunTestbedHost) => Promise<string>
  /** How long the listeners keep listening after the frames are sent (ms). Default 1500. */
  listenMs?: number
  /** How long to wait for every listener to be ready (ms). Default 30 000. */
  readyMs?: number
}

/** The cabling check on a brought-up plan: every link's two ends hear each other, and nothing else. */
export async function checkCabling(run: RemoteRun, plan: MultiHostPlan, hostOf: (name: string) => RunTestbedHost, o: CablingOptions): Promise<CablingReport> {
  const tag = `${plan.prefix}${Date.now().toString(36)}`
  const dirs = new Map<string, string>()
  // Named after the host too: two "hosts" may share one file system (two sshds on one machine).
  for (const p of plan.parts) dirs.set(p.host, `${await o.dir(hostOf(p.host))}/cabling-${p.host}`)
  const outputs = plan.parts.map((p) =>
    run.script(hostOf(p.host), 'p4lab-cabling', HOST_SCRIPT, [dirs.get(p.host)!, tag, ...partNamespaces(p)], { stdin: LISTENER, logOutput: false }).then(
      (r) => r.stdout.toString('utf8') + r.stderr.toString('utf8'),
      (e: Error) => `error ${e.message}`,
    ),
  )
  let finished = false
  const settled = Promise.all(outputs).finally(() => (finished = true))
  const readyBy = Date.now() + (o.readyMs ?? 30_000)
  try {
    // Every listener has its sockets open before any frame is sent.
    for (const p of plan.parts) {
      const want = partNamespaces(p).length
      for (;;) {
        const r = await run.run(hostOf(p.host), ['sh', '-c', `ls -1 "$1" 2>/dev/null | grep -c '^ready-'`, 'p4lab-ready', dirs.get(p.host)!], { check: false, logOutput: false })
        if (Number(r.stdout.toString('utf8').trim()) >= want || finished || Date.now() > readyBy) break
        await sleep(100, run.ctx.signal)
      }
    }
    await Promise.all(plan.parts.map((p) => run.run(hostOf(p.host), ['touch', `${dirs.get(p.host)!}/go`], { check: false, logOutput: false })))
    await sleep(o.listenMs ?? 1500, run.ctx.signal)
  } finally {
    await Promise.all(plan.parts.map((p) => run.run(hostOf(p.host), ['sh', '-c', '[ -d "$1" ] && touch "$1/go" "$1/stop"; exit 0', 'p4lab-stop', dirs.get(p.host)!], { check: false, logOutput: false, cancellable: false })))
  }
  const texts = await settled
  const heard = new Map<string, Array<{ ns: string; ifname: string }>>()
  const failed: string[] = []
  plan.parts.forEach((p, i) => {
    const r = parseListeners(p.host, texts[i], partNamespaces(p))
    for (const [k, v] of r.heard) heard.set(k, v)
    failed.push(...r.failed)
    for (const e of r.errors.slice(0, 5)) run.ctx.log(p.host, `cabling: ${e}`)
    if (texts[i].startsWith('error ')) run.ctx.log(p.host, `cabling: ${texts[i].slice(6)}`)
  })
  const report = judgeCabling(plan, heard, failed)
  run.ctx.event?.('cabling', { ok: report.ok, looked: report.looked, links: plan.cables.length, problems: report.problems })
  return report
}

/** The run's error for a failed check: the wrong cables named, nothing deployed. */
export function cablingError(r: CablingReport): string {
  const bad = r.cables.filter((c) => !c.ok).length
  const what = r.looked ? `${bad} of ${r.cables.length} links failed` : `could not look at every link (${bad} of ${r.cables.length} unchecked or failed)`
  return `cabling check: ${what}: ${r.problems.slice(0, 6).join('; ')}${r.problems.length > 6 ? `; and ${r.problems.length - 6} more` : ''}. Nothing was deployed.`
}

/**
 * A run's cabling check, in its check step: the mapped fabric's namespaces, veths and tunnels
 * brought up with the run's prefix on every mapped host, and every link checked. A wrong cable
 * throws, naming it: the run stops there with nothing deployed (its teardown removes the rest).
 * When all is well: with `keep` (a fabric over several hosts) the checked fabric stays up and
 * deploy starts the switches on it (multideploy.ts); without, everything is removed again,
 * verified, and deploy makes the one-host layout (which has room for the INT collector).
 */
export async function cablingBeforeDeploy(run: RemoteRun, tb: RunTestbed, state: ControlPlaneState, mapping: Bmv2Mapping, prefix: string, facts: TargetFacts, o: { keep?: boolean } = {}): Promise<MultiHostPlan> {
  const plan = planMultiHost(state, prefix, mapping, tb.hosts)
  const hostOf = (name: string): RunTestbedHost => {
    const h = tb.hosts.find((x) => x.name === name)
    if (!h) throw new Error(`testbed '${tb.name}' has no host '${name}'`)
    return h
  }
  for (const l of describePlan(plan)) run.ctx.log('cabling', l)
  // A tunnel end must be one of its host's own addresses, or its frames leave from nowhere.
  await eachHost(plan, hostOf, async (p, h) => {
    if (!p.tunnels.length) return
    const r = await run.run(h, ['ip', '-o', '-4', 'addr', 'show'], { logOutput: false, retryOnLoss: true })
    if (!r.stdout.toString('utf8').includes(` ${p.tunnelAddress}/`)) {
      throw new Error(`${p.tunnelAddress} is not an address of ${h.name}: its tunnelAddress in the testbed's mapping must be its own address on the hosts' network (\`ip -4 addr\` there lists them)`)
    }
  })
  await bringUpMultiHost(run, plan, hostOf, (host, step) => run.ctx.event?.('cabling', { host, step }))
  const report = await checkCabling(run, plan, hostOf, { dir: (h) => run.runDir(h) })
  const tunnels = plan.cables.filter((c) => c.tunnel).length
  facts.cablingLinks = plan.cables.length
  facts.cablingTunnels = tunnels
  facts.cabling = report.ok ? 'ok' : report.looked ? 'miswired' : 'unchecked'
  if (!report.ok) throw new Error(cablingError(report))
  run.ctx.log('cabling', `all ${plan.cables.length} links carried a frame end to end (${tunnels} of them through VXLAN between hosts)`)
  if (o.keep) {
    run.ctx.log('cabling', `the checked fabric stays up on ${plan.parts.map((p) => p.host).join(', ')}: the switches start on these links`)
    return plan
  }
  const left: string[] = []
  for (const p of plan.parts) {
    const l = await run.cleanAndVerify(hostOf(p.host), prefix)
    const what = describeLeftovers(l)
    if (what) left.push(`${p.host}: ${what}`)
  }
  if (left.length) throw new Error(`the cabling check's namespaces could not all be removed before deploy: ${left.join('; ')}`)
  return plan
}
