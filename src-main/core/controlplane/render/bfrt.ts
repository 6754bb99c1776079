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
// Addresses are written as integers (hex) with the dotted form in a comment: bfrt_python
// takes integers for every field, whatever its version does with strings.

import { ipToInt, macToInt } from '../address'
import { switchOf } from '../compute'
import { programFor, type P4Iface } from '../schemes'
import type { ControlPlaneState, MatchField, ParamValue, TableEntry } from '../types'

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
  out.push('', 'bfrt.complete_operations()')
  return out.join('\n') + '\n'
}
