// bfrt_python scripts, run with `$SDE/run_bfshell.sh -b script.py`. Forms checked against
// public bfrt_python setup scripts (open-p4studio examples and several Tofino projects):
//   bfrt.<prog>.pipe.<Control>.<table>.add_with_<action>(<key fields>, <action params>)
//     (keyword form KEY=value with LPM lengths as KEY_p_length and masks as KEY_mask, or
//     positional: keys in declaration order, then action data)
//   bfrt.<prog>.pipe.<Control>.<table>.set_default_with_<action>(<action params>)
//   bfrt.<prog>.pipe.<Control>.<register>.mod(REGISTER_INDEX=i, f1=v)
//   bfrt.pre.node.add(MULTICAST_NODE_ID=n, MULTICAST_RID=r, MULTICAST_LAG_ID=[], DEV_PORT=[...])
//   bfrt.pre.mgid.add(MGID=g, MULTICAST_NODE_ID=[n], MULTICAST_NODE_L1_XID_VALID=[False], MULTICAST_NODE_L1_XID=[0])
//   bfrt.port.port.add(DEV_PORT=p, SPEED='BF_SPEED_40G', FEC='BF_FEC_TYP_NONE', PORT_ENABLE=True)
// The packet generator (Tofino 1, bf-rt tables tf1.pktgen.*; Open-Tofino
// p4-examples/p4_16_programs/tna_pktgen/test.py uses the same tables through gRPC as
// $PKTGEN_PORT_CFG / $PKTGEN_PKT_BUFFER / $PKTGEN_APPLICATION_CFG with these field names,
// pkt_len = buffer length = frame - 6, batch/packet counts minus one):
//   bfrt.tf1.pktgen.port_cfg.mod(dev_port=68, pktgen_enable=True)
//   bfrt.tf1.pktgen.pkt_buffer.mod(pkt_buffer_offset=o, pkt_buffer_size=n, buffer=bytes)
//   bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_periodic(app_id=a, app_enable=True,
//     timer_nanosec=t, pkt_len=n, pkt_buffer_offset=o, pipe_local_source_port=68,
//     increment_source_port=False, batch_count_cfg=0, packets_per_batch_cfg=k-1)
// Queue priorities (bfrt.tf1.tm): a port's queue is found at run time from its DEV_PORT,
// as public bfrt_python setups do: pg_id and egress_qid_queues[qid] from
// bfrt.tf1.tm.port.cfg.get(dev_port), pipe = dev_port >> 7, then
// bfrt.tf1.tm.queue.sched_cfg.mod(pipe=, pg_id=, pg_queue=, min_priority=, max_priority=).
// Addresses are written as integers (hex) with the dotted form in a comment: bfrt_python
// takes integers for every field, whatever its version does with strings.

import { ipToInt, macToInt } from '../../../model/controlplane/address'
import { switchOf } from '../compute'
import type { P4Iface, PktgenApp } from '../../../model/controlplane/module'
import { programFor } from '../program'
import type { ControlPlaneState, MatchField, ParamValue, TableEntry } from '../../../model/controlplane/types'

export interface BfrtOptions {
  /** Tofino DEV_PORT of a fabric port (default: the same number, as on tofino-model). */
  devPort?: (port: number) => number
  /** Leave out bfrt.port.port.add (tofino-model adds its ports from ports.json). */
  skipPorts?: boolean
}

const SPEEDS_G = [1, 10, 25, 40, 50, 100, 200, 400]

/** The BF_SPEED_* a port runs at: the slowest native speed at or above the link's rate. */
export function bfSpeed(bps: number): { speed: string; exact: boolean } {
  const g = SPEEDS_G.find((s) => s * 1e9 >= bps) ?? SPEEDS_G[SPEEDS_G.length - 1]
  return { speed: `BF_SPEED_${g}G`, exact: g * 1e9 === bps }
}

function pyValue(v: ParamValue): { text: string; note?: string } {
  if (typeof v === 'number') return { text: String(v) }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(v)) return { text: '0x' + ipToInt(v).toString(16).padStart(8, '0'), note: v }
  if (/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(v)) return { text: '0x' + macToInt(v).toString(16).padStart(12, '0'), note: v }
  if (/^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return { text: v }
  throw new Error(`cannot write '${v}' as a bfrt_python value`)
}

interface Arg {
  name?: string
  text: string
  note?: string
}

function keyArgs(m: MatchField, name: string | undefined): Arg[] {
  switch (m.kind) {
    case 'exact':
      return [{ name, ...pyValue(m.value) }]
    case 'lpm': {
      const v = pyValue(m.value)
      return [
        { name, ...v, note: v.note ? `${v.note}/${m.prefixLen}` : undefined },
        { name: name && `${name}_p_length`, text: String(m.prefixLen) },
      ]
    }
    case 'ternary':
      return [
        { name, text: String(m.value) },
        { name: name && `${name}_mask`, text: '0x' + m.mask.toString(16) },
      ]
    case 'range':
      return [
        { name: name && `${name}_start`, text: String(m.lo) },
        { name: name && `${name}_end`, text: String(m.hi) },
      ]
  }
}

function short(qualified: string): string {
  return qualified.slice(qualified.lastIndexOf('.') + 1)
}

export function bfrtEntry(prog: string, e: TableEntry, keyNames?: string[], paramNames?: string[]): string {
  const args: Arg[] = []
  if (!e.isDefault) e.match.forEach((m, i) => args.push(...keyArgs(m, keyNames?.[i])))
  e.params.forEach((p, i) => args.push({ name: paramNames?.[i], ...pyValue(p) }))
  if (e.priority !== undefined) args.push({ name: 'MATCH_PRIORITY', text: String(e.priority) })
  const list = args.map((a) => (a.name ? `${a.name}=${a.text}` : a.text)).join(', ')
  const notes = args.filter((a) => a.note).map((a) => a.note)
  const call = e.isDefault ? `set_default_with_${short(e.action)}` : `add_with_${short(e.action)}`
  return `bfrt.${prog}.pipe.${e.table}.${call}(${list})${notes.length ? '  # ' + notes.join(' ') : ''}`
}

/** The helper every script with queue priorities defines (check.ts accepts exactly these lines). */
export const BFRT_QUEUE_HELPER: readonly string[] = [
  'def p4lab_queue_priority(dev_port, qid, priority):',
  '    cfg = bfrt.tf1.tm.port.cfg.get(dev_port, print_ents=False)',
  "    bfrt.tf1.tm.queue.sched_cfg.mod(pipe=dev_port >> 7, pg_id=cfg.data[b'pg_id'], pg_queue=cfg.data[b'egress_qid_queues'][qid], min_priority=priority, max_priority=priority)",
]

function hex(bytes: number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** The three pktgen calls of a timer app, in the order they must run (the app is enabled last). */
export function bfrtPktgen(app: PktgenApp): string[] {
  const n = app.buffer.length
  return [
    `bfrt.tf1.pktgen.port_cfg.mod(dev_port=${app.sourcePort}, pktgen_enable=True)`,
    `bfrt.tf1.pktgen.pkt_buffer.mod(pkt_buffer_offset=${app.bufferOffset}, pkt_buffer_size=${n}, buffer=bytes.fromhex('${hex(app.buffer)}'))`,
    `bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_periodic(app_id=${app.appId}, app_enable=True, timer_nanosec=${app.periodNs}, pkt_len=${n}, ` +
      `pkt_buffer_offset=${app.bufferOffset}, pipe_local_source_port=${app.sourcePort}, increment_source_port=False, batch_count_cfg=0, packets_per_batch_cfg=${app.packets - 1})`,
  ]
}

/** The bfrt_python script of one switch. */
export function renderBfrt(state: ControlPlaneState, which: string | number, iface?: P4Iface, opts: BfrtOptions = {}): string {
  const sw = switchOf(state, which)
  const dev = opts.devPort ?? ((p: number) => p)
  const prog = programFor(state, sw, 'tofino', iface, dev)
  const out: string[] = []
  out.push(`# p4lab control plane: ${state.scheme} on ${sw.name} (switch id ${sw.switchId}${sw.torIndex >= 0 ? `, ToR ${sw.torIndex}` : ''})`)
  out.push(`# Tofino program ${prog.programName}; run with: $SDE/run_bfshell.sh -b <this file>`)
  out.push(`# Generated from the fabric by src-main/core/controlplane; edit the experiment, not this file.`)
  if (!opts.skipPorts) {
    out.push('', '# Ports (DEV_PORT = fabric port unless the testbed maps them)')
    for (const q of sw.queues) {
      const sp = bfSpeed(q.bps)
      const pi = sw.ports[q.port]
      const note = sp.exact ? '' : ` (link is ${q.bps / 1e9} Gbps: shape it, the port cannot run that slow)`
      out.push(
        `bfrt.port.port.add(DEV_PORT=${dev(q.port)}, SPEED='${sp.speed}', FEC='BF_FEC_TYP_NONE', PORT_ENABLE=True)  # port ${q.port} to ${pi.peer}${note}`,
      )
    }
  }
  out.push('', '# Tables')
  let lastComment = ''
  for (const e of prog.entries) {
    if (e.comment && e.comment !== lastComment) {
      out.push(`# ${e.comment}`)
      lastComment = e.comment
    }
    const t = prog.tables?.[e.table]
    out.push(bfrtEntry(prog.programName, e, t?.keys, prog.actions?.[e.action]))
  }
  if (prog.mcastGroups.length > 0) {
    out.push('', '# Multicast groups (PRE): one node per group, node id = group id, rid 0')
    for (const g of prog.mcastGroups) {
      out.push(`# group ${g.id}: ${g.purpose}`)
      out.push(`bfrt.pre.node.add(MULTICAST_NODE_ID=${g.id}, MULTICAST_RID=0, MULTICAST_LAG_ID=[], DEV_PORT=[${g.ports.map(dev).join(', ')}])`)
      out.push(`bfrt.pre.mgid.add(MGID=${g.id}, MULTICAST_NODE_ID=[${g.id}], MULTICAST_NODE_L1_XID_VALID=[False], MULTICAST_NODE_L1_XID=[0])`)
    }
  }
  if (prog.registers.length > 0) {
    out.push('', '# Registers')
    lastComment = ''
    for (const r of prog.registers) {
      if (r.comment && r.comment !== lastComment) {
        out.push(`# ${r.comment}`)
        lastComment = r.comment
      }
      out.push(`bfrt.${prog.programName}.pipe.${r.register}.mod(REGISTER_INDEX=${r.index}, f1=${r.value})`)
    }
  }
  if (prog.queuePriorities && prog.queuePriorities.length > 0) {
    out.push('', '# Queue priorities (traffic manager): strict priority, higher wins')
    out.push(...BFRT_QUEUE_HELPER, '')
    lastComment = ''
    for (const q of prog.queuePriorities) {
      if (q.why !== lastComment) {
        out.push(`# ${q.why}`)
        lastComment = q.why
      }
      out.push(`p4lab_queue_priority(dev_port=${q.port}, qid=${q.qid}, priority=${q.priority})`)
    }
  }
  if (prog.pktgen) {
    const a = prog.pktgen
    out.push('', `# Packet generator (last, once the tables are in): ${a.why}`)
    out.push(`# buffer: 8 bytes the parser skips, the program's header, zero padding (${a.buffer.length} B + the 6-byte pktgen header = a 64 B frame)`)
    out.push(...bfrtPktgen(a))
  }
  out.push('', 'bfrt.complete_operations()')
  return out.join('\n') + '\n'
}
