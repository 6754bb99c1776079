// p4lab int listen: a Telemetry Report v2.0 collector on a UDP port, printing what it decodes.
import { parseArgs } from 'node:util'
import { IntCollector, type CollectorCounts } from '../../core/int/collector'
import { reportToJson, type IndividualReport, type IntHop, type TelemetryReportPacket } from '../../core/int/decode'
import { UsageError, type Command } from '../common'

const REP_TYPES = ['inner', 'INT', 'IOAM']
/** Lines waiting in stdout past this are not printed (a reader that stopped reading); counted. */
const STDOUT_LIMIT = 16 << 20

function hopText(h: IntHop): string {
  const parts: string[] = []
  if (h['Level 1 Ingress Port ID'] !== undefined) parts.push(`${h['Level 1 Ingress Port ID']}→${h['Level 1 Egress Port ID']}`)
  if (h['Hop latency'] !== undefined) parts.push(`lat ${h['Hop latency']}`)
  if (h['Queue occupancy'] !== undefined) parts.push(`q${h['Queue ID']}=${h['Queue occupancy']}`)
  if (h['Egress port Tx utilization'] !== undefined) parts.push(`tx ${h['Egress port Tx utilization']}`)
  if (h['Buffer occupancy'] !== undefined) parts.push(`b${h['Buffer ID']}=${h['Buffer occupancy']}`)
  if (h['Drop Reason'] !== undefined) parts.push(`drop ${h['Drop Reason']}`)
  return `${h['Switch ID'] ?? '?'}${parts.length ? `(${parts.join(' ')})` : ''}`
}

/** One compact line per report: sequence, node, type, flags, flow, hops (report's own first). */
function tableLine(p: TelemetryReportPacket, r: IndividualReport): string {
  const flags = (['D', 'Q', 'F', 'I'] as const).filter((f) => r[f]).join('') || '-'
  const flow = r.inner ? `${r.inner.src}:${r.inner.srcPort ?? ''}→${r.inner.dst}:${r.inner.dstPort ?? ''}` : '-'
  return [
    `seq ${String(p['Sequence Number']).padStart(7)}`,
    `node ${String(p['Node ID']).padStart(5)}`,
    `${(REP_TYPES[r.RepType] ?? String(r.RepType)).padEnd(5)}`,
    flags.padEnd(4),
    flow.padEnd(32),
    `hops ${r.hops.length}: ${r.hops.map(hopText).join(' ← ')}`,
  ].join('  ')
}

function countsLine(c: CollectorCounts, unprinted: number, reasons: Map<string, number>): string {
  const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([r, n]) => `${n}× ${r}`)
  return (
    `int listen: ${c.packets} packets, ${c.decoded} decoded, ${c.malformed} malformed, ${c.reports} reports, ${c.hops} hops, ${c.lost} lost by sequence number` +
    (unprinted ? `, ${unprinted} reports not printed (stdout full)` : '') +
    (top.length ? `\nmalformed: ${top.join('; ')}` : '') +
    '\n'
  )
}

async function listen(port: number, host: string, json: boolean, intPorts: number[], dscp: number | undefined): Promise<number> {
  let unprinted = 0
  const write = (line: string) => {
    if (process.stdout.writableLength > STDOUT_LIMIT) unprinted++
    else process.stdout.write(line + '\n')
  }
  const collector = new IntCollector({
    port,
    host,
    keepReports: 0,
    decode: { intUdpPorts: intPorts, intDscp: dscp === undefined ? null : { value: dscp, mask: 0x3f } },
    onReport: (p, r) => write(json ? reportToJson(p, r) : tableLine(p, r)),
    onMalformed: json ? undefined : (reason) => write(`malformed: ${reason}`),
  })
  const bound = await collector.start()
  process.stderr.write(`int listen: Telemetry Report v2.0 on udp ${host}:${bound}${intPorts.length ? `, INT over UDP port ${intPorts.join(',')}` : ''}${dscp !== undefined ? `, INT DSCP ${dscp}` : ''}; Ctrl-C prints the counts\n`)
  return new Promise<number>((resolve) => {
    const stop = () => {
      void collector.stop().then(() => {
        const text = countsLine(collector.counts, unprinted, collector.decoder.malformedReasons)
        // In JSON mode stdout holds only report lines.
        ;(json ? process.stderr : process.stdout).write(text, () => resolve(0))
      })
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

function portOf(text: string | undefined, flag: string, dflt: number): number {
  if (text === undefined) return dflt
  const n = Number(text)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${flag} must be 0-65535, got '${text}'`)
  return n
}

export const intCommand: Command = {
  name: 'int',
  usage: [
    'int listen --port N [--host ADDR] [--json] [--int-port N] [--int-dscp V]',
    '    collect Telemetry Report v2.0 (INT) packets on a UDP port: one line per report (--json: spec',
    '    field names, one object per hop); INT over UDP/TCP inside truncated packets is found by',
    '    --int-port (UDP destination port) or --int-dscp; Ctrl-C prints the counts',
  ],
  run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '0.0.0.0' },
        json: { type: 'boolean', default: false },
        'int-port': { type: 'string', multiple: true },
        'int-dscp': { type: 'string' },
      },
    })
    if (positionals[0] !== 'listen' || positionals.length !== 1) throw new UsageError(`int: expected 'listen', got '${positionals.join(' ')}'`)
    if (values.port === undefined) throw new UsageError('int listen needs --port N')
    const port = portOf(values.port, '--port', 0)
    const intPorts = (values['int-port'] ?? []).map((p) => portOf(p, '--int-port', 0))
    let dscp: number | undefined
    if (values['int-dscp'] !== undefined) {
      dscp = Number(values['int-dscp'])
      if (!Number.isInteger(dscp) || dscp < 0 || dscp > 63) throw new UsageError(`--int-dscp must be 0-63, got '${values['int-dscp']}'`)
    }
    return listen(port, values.host, values.json, intPorts, dscp)
  },
}
