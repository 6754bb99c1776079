// The frame check of a mapped Tofino fabric: every link carries a frame, and a crossed cable is
// named ("leaf2 port 3 reaches spine1 port 5, expected spine0 port 2") before the scheme's
// program is configured. Pure: the scripts, their parsers and the judgement; bringup.ts runs it.
//
// How it looks, with what the SDE offers and nothing on the servers:
// - every switch runs p4lab's check program (resources/tofino/p4lab_cabling.p4) while its mapped
//   ports are up: a frame from the packet generator leaves by the DEV_PORT its buffer names, and
//   every other frame is dropped, so nothing but the check's own bursts crosses a link;
// - the check goes in rounds. In round r every switch sends one burst out of its r-th mapped
//   port (by fabric port number) with a one-shot pktgen timer application
//   (bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_one_shot, the buffer written by
//   tf1.pktgen.pkt_buffer.mod). Switch k (in control-plane order) sends 8·(k+1) frames, so
//   the bursts of one round can be told apart by their size;
// - before and after each burst every switch reads $FramesReceivedOK and $FramesTransmittedOK
//   of each mapped port from bfrt.port.port_stat (from_hw=True). The far end of a sending port
//   is the port whose RX counter rose by exactly that switch's burst size;
// - a sending port whose TX counter did not rise by its burst has not been looked at (pktgen
//   or the check program did not send): the check says so and does not call the link dark.
//
// Limits: a link to a server is only checked from the switch side (the port is up, its burst
// left, and it reached no other switch port); that the right server is at the end is left to
// the traffic step's address check. The check needs Tofino 1 (pktgen on pipe-local port 68 of
// pipe 0, as the scheme programs use it), bf-p4c to compile the check program once (cached
// like any program), and a switchd restart per switch between the check and the scheme's
// program (the ports are added again and must come up again).
import type { TofinoPortMapping } from '../../../contract/testbed-mapping'
import type { ControlPlaneState } from '../../controlplane'
import { PKTGEN_PORT } from '../../../schemes/shared/pktgen'

export const CHECK_PROGRAM = 'p4lab_cabling'
/** The pktgen application the check uses (the check program runs alone: no scheme app to clash with). */
export const CABLE_APP_ID = 1
export const CABLE_MARKER = 0x88b5
/** A 128-byte frame: the 6-byte generator header, then this buffer. */
const BUFFER_BYTES = 122
const FRAMES_STEP = 8

/** One mapped port of a switch, and what the fabric says is at its other end. */
export interface FramePort {
  switch: string
  port: number
  frontPanel: string
  /** The far end: a switch port, or a server (not observed by the check). */
  peer: { kind: 'switch'; switch: string; port: number } | { kind: 'host'; host: string }
}

export interface FrameSwitch {
  name: string
  /** Frames per burst: 8·(k+1) for the k-th switch. */
  burst: number
  ports: FramePort[]
}

export interface FramePlan {
  switches: FrameSwitch[]
  rounds: number
}

/** The rounds of the check: each switch sends from its r-th mapped port in round r. */
export function planFrames(state: ControlPlaneState, ports: (sw: string) => readonly TofinoPortMapping[]): FramePlan {
  const switches = state.switches.map((s, k) => {
    const mapped = ports(s.name)
    const out: FramePort[] = []
    for (const p of [...s.ports].sort((a, b) => a.port - b.port)) {
      const m = mapped.find((x) => x.port === p.port)
      if (!m) throw new Error(`${s.name} port ${p.port} has no front-panel port in the mapping`)
      const peer = p.facing === 'host' ? { kind: 'host' as const, host: p.peer } : { kind: 'switch' as const, switch: p.peer, port: p.peerPort }
      out.push({ switch: s.name, port: p.port, frontPanel: m.frontPanel, peer })
    }
    return { name: s.name, burst: FRAMES_STEP * (k + 1), ports: out }
  })
  return { switches, rounds: Math.max(0, ...switches.map((s) => s.ports.length)) }
}

function cageLane(fp: string): string {
  const [c, l] = fp.split('/').map(Number)
  return `CONN_ID=${c}, CHNL_ID=${l}`
}

const DEV = (fp: string) => `bfrt.port.port_hdl_info.get(${cageLane(fp)}, print_ents=False).data[b'$DEV_PORT']`

/** Reads RX/TX frame counters of every mapped port: `cnt <fabric port> <front panel> <rx> <tx>`. */
export function countersScript(sw: FrameSwitch): string {
  const lines = [`# p4lab: frame counters of ${sw.name}`]
  for (const p of sw.ports) {
    lines.push(
      `d = ${DEV(p.frontPanel)}`,
      `s = bfrt.port.port_stat.get(DEV_PORT=d, from_hw=True, print_ents=False).data`,
      `print('cnt ${p.port} ${p.frontPanel} %d %d' % (s[b'$FramesReceivedOK'], s[b'$FramesTransmittedOK']))`,
    )
  }
  lines.push(`print('p4lab counters done ${sw.name}')`, '')
  return lines.join('\n')
}

function hex(bytes: number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** The generator buffer for a burst out of DEV_PORT `dev` (filled in by the script: the DEV_PORT is the SDE's to say). */
function bufferPrefix(): string {
  return hex([0, 0, 0, 0, 0, 0, 0, 0, CABLE_MARKER >> 8, CABLE_MARKER & 0xff])
}

/**
 * Round r's burst of one switch: its r-th mapped port resolved to a DEV_PORT, the generator's
 * buffer naming it, the one-shot timer app disabled, rewritten, enabled. Prints `sent <fabric
 * port> <front panel> dev <DEV_PORT> frames <n>`; null when the switch has no r-th port.
 */
export function sendScript(sw: FrameSwitch, round: number, tag: number): string | null {
  const p = sw.ports[round]
  if (!p) return null
  const n = sw.burst
  const app = (enable: boolean) =>
    `bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_one_shot(app_id=${CABLE_APP_ID}, app_enable=${enable ? 'True' : 'False'}, timer_nanosec=1000, pkt_len=${BUFFER_BYTES}, ` +
    `pkt_buffer_offset=0, pipe_local_source_port=${PKTGEN_PORT}, increment_source_port=False, batch_count_cfg=0, packets_per_batch_cfg=${n - 1})`
  const tagHex = (tag >>> 0).toString(16).padStart(8, '0')
  return [
    `# p4lab: frame check round ${round} of ${sw.name}: ${n} frames out of port ${p.port} (${p.frontPanel})`,
    `d = ${DEV(p.frontPanel)}`,
    `bfrt.tf1.pktgen.port_cfg.mod(dev_port=${PKTGEN_PORT}, pktgen_enable=True)`,
    app(false),
    `buf = bytes.fromhex('${bufferPrefix()}') + d.to_bytes(2, 'big') + bytes.fromhex('${tagHex}')`,
    `bfrt.tf1.pktgen.pkt_buffer.mod(pkt_buffer_offset=0, pkt_buffer_size=${BUFFER_BYTES}, buffer=buf + bytes(${BUFFER_BYTES} - len(buf)))`,
    app(true),
    `print('sent ${p.port} ${p.frontPanel} dev %d frames ${n}' % d)`,
    `print('p4lab send done ${sw.name}')`,
    '',
  ].join('\n')
}

export interface PortCounters {
  rx: number
  tx: number
}

/** `cnt` lines of one switch's counter read; complete when every mapped port and the end marker came. */
export function parseCounters(sw: FrameSwitch, text: string): { complete: boolean; ports: Map<number, PortCounters> } {
  const ports = new Map<number, PortCounters>()
  for (const line of text.split('\n')) {
    const m = /^cnt (\d+) (\d+\/\d) (\d+) (\d+)\s*$/.exec(line.trim())
    if (m) ports.set(Number(m[1]), { rx: Number(m[3]), tx: Number(m[4]) })
  }
  const done = text.split('\n').some((l) => l.trim() === `p4lab counters done ${sw.name}`)
  return { complete: done && sw.ports.every((p) => ports.has(p.port)), ports }
}

/** Whether a send script ran to its end. */
export function parseSent(sw: FrameSwitch, text: string): boolean {
  return text.split('\n').some((l) => l.trim() === `p4lab send done ${sw.name}`)
}

export function portName(p: { switch: string; port: number }): string {
  return `${p.switch} port ${p.port}`
}

/** What one round saw: counters before and after, per switch (absent: that read failed). */
export interface FrameRound {
  round: number
  before: Map<string, Map<number, PortCounters>>
  after: Map<string, Map<number, PortCounters>>
  /** Switches whose send script did not run to its end. */
  notSent: Set<string>
}

export interface FrameLinkResult {
  from: FramePort
  ok: boolean
  /** Where its burst arrived (switch ports), when anywhere. */
  reached: FramePort[]
  problem: string | null
}

export interface FrameReport {
  /** Every mapped port's burst left and arrived where the fabric says (or, to a server, nowhere else). */
  ok: boolean
  /** False when some burst could not be looked at (a read or a send failed, or nothing left the port). */
  looked: boolean
  links: FrameLinkResult[]
  /** One line per problem, crossed cables first. */
  problems: string[]
}

/** Compares each round's counter deltas with the fabric: which port's RX rose by each sender's burst. */
export function judgeFrames(plan: FramePlan, rounds: readonly FrameRound[]): FrameReport {
  const byKey = new Map<string, FramePort>()
  for (const s of plan.switches) for (const p of s.ports) byKey.set(`${s.name}\0${p.port}`, p)
  const links: FrameLinkResult[] = []
  let looked = true
  const delta = (r: FrameRound, sw: string, port: number): PortCounters | null => {
    const a = r.before.get(sw)?.get(port)
    const b = r.after.get(sw)?.get(port)
    return a && b ? { rx: b.rx - a.rx, tx: b.tx - a.tx } : null
  }
  for (const r of rounds) {
    for (const s of plan.switches) {
      const from = s.ports[r.round]
      if (!from) continue
      const fp = (p: FramePort) => `${p.switch} ${p.frontPanel}`
      const fail = (problem: string) => {
        looked = false
        links.push({ from, ok: false, reached: [], problem })
      }
      if (r.notSent.has(s.name)) {
        fail(`${portName(from)} (${fp(from)}): could not look, its burst was not sent (the send script on ${s.name} did not finish)`)
        continue
      }
      const own = delta(r, s.name, from.port)
      if (!own) {
        fail(`${portName(from)} (${fp(from)}): could not look, the counters of ${s.name} were not read`)
        continue
      }
      if (own.tx < s.burst) {
        fail(`${portName(from)} (${fp(from)}): could not look, its TX counter rose by ${own.tx} of ${s.burst} frames (did the check program load, and pktgen run?)`)
        continue
      }
      const reached: FramePort[] = []
      let unread = false
      for (const t of plan.switches) {
        for (const p of t.ports) {
          const d = delta(r, t.name, p.port)
          if (!d) unread = true
          else if (d.rx === s.burst) reached.push(p)
        }
      }
      const peer = from.peer
      if (peer.kind === 'switch') {
        const expected = byKey.get(`${peer.switch}\0${peer.port}`)
        const exp = `${peer.switch} port ${peer.port}`
        const expFp = expected ? fp(expected) : `${peer.switch} (unmapped)`
        if (expected && reached.includes(expected)) {
          links.push({ from, ok: true, reached, problem: null })
        } else if (reached.length) {
          links.push({ from, ok: false, reached, problem: `${portName(from)} reaches ${reached.map(portName).join(' and ')}, expected ${exp} (front panel ${fp(from)} is cabled to ${reached.map(fp).join(' and ')}, expected ${expFp})` })
        } else if (unread) {
          fail(`${portName(from)} (${fp(from)}): could not look, a switch's counters were not read in round ${r.round + 1}`)
        } else {
          links.push({ from, ok: false, reached, problem: `${portName(from)} reaches no port, expected ${exp}: its ${s.burst} frames left ${fp(from)} and arrived nowhere (a dark or unplugged cable, or one to something outside the fabric; ${expFp} expected)` })
        }
      } else if (reached.length) {
        links.push({ from, ok: false, reached, problem: `${portName(from)} reaches ${reached.map(portName).join(' and ')}, expected server ${peer.host} (front panel ${fp(from)} is cabled to ${reached.map(fp).join(' and ')})` })
      } else {
        links.push({ from, ok: true, reached, problem: null })
      }
    }
  }
  // In the fabric's order (switch, then port), whatever the round each burst went in.
  const order = new Map(plan.switches.flatMap((s) => s.ports).map((p, i) => [p, i]))
  links.sort((a, b) => order.get(a.from)! - order.get(b.from)!)
  const problems = links.flatMap((l) => (l.problem ? [l.problem] : []))
  problems.sort((x, y) => Number(/^\S+ port \d+ reaches \S+ port/.test(y)) - Number(/^\S+ port \d+ reaches \S+ port/.test(x)))
  return { ok: problems.length === 0, looked, links, problems }
}

/** The run's error for a failed check: the crossed or dark cables named, nothing configured. */
export function framesError(r: FrameReport): string {
  const bad = r.links.filter((l) => !l.ok).length
  const what = r.looked ? `${bad} of ${r.links.length} ports' frames went wrong` : `could not look at every port (${bad} of ${r.links.length} unchecked or wrong)`
  return `frame check: ${what}: ${r.problems.slice(0, 6).join('; ')}${r.problems.length > 6 ? `; and ${r.problems.length - 6} more` : ''}. The scheme's program was not configured and no traffic was sent.`
}
