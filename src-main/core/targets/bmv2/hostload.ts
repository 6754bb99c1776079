// What the switch host does while a BMv2 run's traffic goes on, read once per poll round by one
// light command (HOST_SAMPLE_SCRIPT: each simple_switch's /proc/<pid>/stat and the switch
// namespace's /proc/net/dev), and the verdict at the end: were the switches, not the links,
// what limited the run?
//
//   switch.cpu      CPU the simple_switch process used (all its threads), in cores
//   switch.drops    packets that entered a switch's interfaces and did not leave them: the
//                   kernel's rx minus tx over its ports (a full input or egress buffer, a drop
//                   in the program). Replicated or consumed probes (HULA, DHLB) shift it.
//   host.sent       bit/s a host put on its link (rx of its ToR port); TCP sends less than the
//                   agents' offered load when the fabric cannot carry it
//   host.received   bit/s its ToR delivered to it (tx of that port): the achieved throughput
import type { RunTestbedHost, SeriesSpec } from '../driver'
import type { NetnsPlan } from '../shared/netns'
import { PATH_PREFIX, type RemoteRun } from '../shared/remote'

/** `clk TCK CPUS NOW_NS`, a `stat NAME …` line per process, then `dev` and the namespace's /proc/net/dev. Args: NS then NAME PIDFILE pairs. */
export const HOST_SAMPLE_SCRIPT = `${PATH_PREFIX}
ns=$1; shift
printf 'clk %s %s %s\\n' "$(getconf CLK_TCK 2>/dev/null || echo 100)" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" "$(date +%s%N)"
while [ $# -ge 2 ]; do
  n=$1; f=$2; shift 2
  case $f in /*) ;; *) f=$HOME/$f ;; esac
  pid=$(cat "$f" 2>/dev/null) || continue
  s=$(cat /proc/"$pid"/stat 2>/dev/null) || continue
  printf 'stat %s %s\\n' "$n" "$s"
done
echo dev
exec ip netns exec "$ns" cat /proc/net/dev`

export interface IfCounters {
  rxBytes: number
  rxPackets: number
  txBytes: number
  txPackets: number
}

export interface HostSample {
  /** The host's clock, ns. */
  tNs: number
  clkTck: number
  cpus: number
  /** Process name → its user + system time, clock ticks. */
  ticks: Map<string, number>
  dev: Map<string, IfCounters>
}

/** Parses HOST_SAMPLE_SCRIPT's output; null when its first line is missing (the command failed). */
export function parseHostSample(text: string): HostSample | null {
  const lines = text.split('\n')
  const clk = /^clk (\d+) (\d+) (\d+)\s*$/.exec(lines[0] ?? '')
  if (!clk) return null
  const sample: HostSample = { tNs: Number(clk[3]), clkTck: Number(clk[1]) || 100, cpus: Number(clk[2]) || 1, ticks: new Map(), dev: new Map() }
  let i = 1
  for (; i < lines.length && lines[i] !== 'dev'; i++) {
    const m = /^stat (\S+) (.*)$/.exec(lines[i])
    if (!m) continue
    // comm (field 2) may hold spaces and parentheses: the fields after it start past the last ')'.
    const rest = m[2].slice(m[2].lastIndexOf(')') + 2).split(' ')
    const utime = Number(rest[11])
    const stime = Number(rest[12])
    if (Number.isFinite(utime) && Number.isFinite(stime)) sample.ticks.set(m[1], utime + stime)
  }
  for (const l of lines.slice(i + 1)) {
    const m = /^\s*([^\s:]+):\s*(.*)$/.exec(l)
    if (!m) continue
    const f = m[2].trim().split(/\s+/).map(Number)
    if (f.length < 16 || f.some((x) => !Number.isFinite(x))) continue
    sample.dev.set(m[1], { rxBytes: f[0], rxPackets: f[1], txBytes: f[8], txPackets: f[9] })
  }
  return sample
}

/** One round's figures, beside the series: what the verdict adds up. */
export interface LoadRound {
  dtS: number
  /** switch → cores used. */
  cpu: Map<string, number>
  cpus: number
  packetsIn: number
  packetsLost: number
  sentBps: number
  receivedBps: number
}

export interface HostLoadPlan {
  defs: SeriesSpec[]
  /** The series' values (in defs' order) and the round's figures; null before a second sample. */
  values(cur: HostSample, prev: HostSample | null): { values: number[]; round: LoadRound } | null
  /** The arguments of HOST_SAMPLE_SCRIPT after the namespace: process name, pid file. */
  processes: Array<{ switch: string; proc: string }>
}

/** The series of the switch host's load; `proc` names each switch's simple_switch process. */
export function hostLoadPlan(plan: NetnsPlan, proc: (switchName: string) => string): HostLoadPlan {
  const defs: SeriesSpec[] = []
  const switches = plan.switches.map((s) => ({ name: s.name, proc: proc(s.name), ifnames: s.ports.map((p) => p.ifname) }))
  for (const s of switches) {
    defs.push({ kind: 'switch.cpu', entity: { switch: s.name }, unit: 'cores' })
    defs.push({ kind: 'switch.drops', entity: { switch: s.name }, unit: 'count' })
  }
  const hostPorts = plan.hosts.map((h) => {
    const link = plan.links.find((l) => l.hostNs === h.ns)
    if (!link) throw new Error(`host ${h.name} has no link in the plan`)
    return { host: h.name, ifname: link.a }
  })
  for (const hp of hostPorts) {
    defs.push({ kind: 'host.sent', entity: { host: hp.host }, unit: 'bps' })
    defs.push({ kind: 'host.received', entity: { host: hp.host }, unit: 'bps' })
  }
  return {
    defs,
    processes: switches.map((s) => ({ switch: s.name, proc: s.proc })),
    values(cur, prev) {
      if (!prev) return null
      const dtS = (cur.tNs - prev.tNs) / 1e9
      if (!(dtS > 0)) return null
      const d = (name: string, k: keyof IfCounters): number => {
        const a = cur.dev.get(name)?.[k]
        const b = prev.dev.get(name)?.[k]
        return a === undefined || b === undefined ? NaN : a - b
      }
      const values: number[] = []
      const round: LoadRound = { dtS, cpu: new Map(), cpus: cur.cpus, packetsIn: 0, packetsLost: 0, sentBps: 0, receivedBps: 0 }
      for (const s of switches) {
        const a = cur.ticks.get(s.proc)
        const b = prev.ticks.get(s.proc)
        const cores = a === undefined || b === undefined ? NaN : (a - b) / cur.clkTck / dtS
        values.push(cores)
        if (Number.isFinite(cores)) round.cpu.set(s.name, cores)
        let rx = 0
        let tx = 0
        for (const n of s.ifnames) {
          rx += d(n, 'rxPackets')
          tx += d(n, 'txPackets')
        }
        const lost = Number.isFinite(rx - tx) ? Math.max(0, rx - tx) : NaN
        values.push(lost)
        if (Number.isFinite(lost)) {
          round.packetsIn += rx
          round.packetsLost += lost
        }
      }
      for (const hp of hostPorts) {
        const sent = (d(hp.ifname, 'rxBytes') * 8) / dtS
        const received = (d(hp.ifname, 'txBytes') * 8) / dtS
        values.push(sent, received)
        if (Number.isFinite(sent)) round.sentBps += sent
        if (Number.isFinite(received)) round.receivedBps += received
      }
      return { values, round }
    },
  }
}

/** One sample of the switch host (null when the command failed). */
export async function sampleHost(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan, lp: HostLoadPlan): Promise<HostSample | null> {
  const procs = await run.processes(h)
  const args = [plan.switchNs, ...lp.processes.flatMap((p) => [p.proc, procs.pidFile(p.proc)])]
  const r = await run.script(h, 'p4lab-load', HOST_SAMPLE_SCRIPT, args, { check: false, logOutput: false, retryOnLoss: true })
  return r.code === 0 ? parseHostSample(r.stdout.toString('utf8')) : null
}

/** A switch at this share of a core, or all of them at this share of the host's cores, is pinned. */
export const PINNED_CORES = 0.9
/** A port at this link.util (of its scaled rate) is saturated. */
export const SATURATED_UTIL = 0.9

export interface LoadTally {
  /** Rounds in which some host sent. */
  rounds: number
  pinnedRounds: number
  saturatedRounds: number
  packetsIn: number
  packetsLost: number
  /** The busiest switch seen, in cores. */
  maxCpu: { switch: string; cores: number } | null
  sentBits: number
  receivedBits: number
  seconds: number
}

export function emptyTally(): LoadTally {
  return { rounds: 0, pinnedRounds: 0, saturatedRounds: 0, packetsIn: 0, packetsLost: 0, maxCpu: null, sentBits: 0, receivedBits: 0, seconds: 0 }
}

/**
 * What the hosts must send in a round for it to count: rounds before the clients start carry only
 * stray packets (IPv6 solicitations, far under 100 kb/s), while a fabric the switches choke may
 * carry a few percent of the offered load, and those rounds matter most.
 */
export function activeBps(offeredBps: number): number {
  return Math.min(100e3, 0.05 * offeredBps)
}

/**
 * Adds a round (with the busiest port's link.util of the same round) to the tally; a round in
 * which the hosts sent less than `activeBps` (before the clients start: stray IPv6 packets) is left out.
 */
export function tallyRound(t: LoadTally, r: LoadRound, maxLinkUtil: number, activeBps: number): void {
  if (!(r.sentBps > 0 && r.sentBps >= activeBps)) return
  t.rounds++
  let total = 0
  let pinned = false
  for (const [sw, cores] of r.cpu) {
    total += cores
    if (cores >= PINNED_CORES) pinned = true
    if (!t.maxCpu || cores > t.maxCpu.cores) t.maxCpu = { switch: sw, cores }
  }
  if (pinned || total >= PINNED_CORES * r.cpus) t.pinnedRounds++
  if (maxLinkUtil >= SATURATED_UTIL) t.saturatedRounds++
  t.packetsIn += r.packetsIn
  t.packetsLost += r.packetsLost
  t.sentBits += r.sentBps * r.dtS
  t.receivedBits += r.receivedBps * r.dtS
  t.seconds += r.dtS
}

export interface LoadVerdict {
  bottleneck: 'switches' | 'links' | 'none' | 'unknown'
  pinnedShare: number
  saturatedShare: number
  lossRatio: number
  achievedBps: number
  offeredBps: number
  message: string
}

const mbps = (bps: number): string => `${Number((bps / 1e6).toPrecision(3))} Mb/s`
const pct = (x: number): string => `${Number((x * 100).toPrecision(2))} %`

/**
 * Switches, when they were pinned (a quarter of the rounds or more) or lost 1 % of what came in,
 * while the links were not saturated (under a quarter of the rounds); links, when those were.
 */
export function loadVerdict(t: LoadTally, offeredBps: number): LoadVerdict {
  const share = (n: number) => (t.rounds ? n / t.rounds : 0)
  const v = {
    pinnedShare: share(t.pinnedRounds),
    saturatedShare: share(t.saturatedRounds),
    lossRatio: t.packetsIn > 0 ? t.packetsLost / t.packetsIn : 0,
    achievedBps: t.seconds > 0 ? t.receivedBits / t.seconds : 0,
    offeredBps,
  }
  if (t.rounds === 0) return { ...v, bottleneck: 'unknown', message: 'no poll round saw traffic: nothing to judge the switch host by' }
  const figures = [
    `switches pinned (a switch at ${PINNED_CORES * 100} % of a core or more, or all at that share of the host) in ${t.pinnedRounds} of ${t.rounds} rounds${t.maxCpu ? `, busiest ${t.maxCpu.switch} at ${t.maxCpu.cores.toFixed(2)} cores` : ''}`,
    `${pct(v.lossRatio)} of the packets into the switches lost inside them`,
    `a link at ${SATURATED_UTIL * 100} % of its rate or more in ${t.saturatedRounds} of ${t.rounds} rounds`,
    `hosts received ${mbps(v.achievedBps)} of ${mbps(offeredBps)} offered`,
  ].join('; ')
  if (v.saturatedShare >= 0.25) return { ...v, bottleneck: 'links', message: `the links were the bottleneck: ${figures}` }
  if (v.pinnedShare >= 0.25 || v.lossRatio >= 0.01) {
    return {
      ...v,
      bottleneck: 'switches',
      message: `the switches, not the links, limited this run: its FCTs measure the switch host's CPU more than the scheme (${figures}); lower the testbed's rateScale or rate ceiling, or give the switches more cores`,
    }
  }
  return { ...v, bottleneck: 'none', message: `neither the switches nor the links were saturated: ${figures}` }
}
