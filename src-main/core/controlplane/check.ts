// Checks rendered simple_switch_CLI files and bfrt_python scripts against what a P4 program
// declares (src-main/core/p4/declarations.ts): every table, action, register and multicast
// use must exist, action parameter counts must match, key fields must have the right count
// and form, register indices must be within the array, and every multicast group or mirror
// session a table entry points at must be created in the same file. Returns problems as
// "line N: what is wrong"; an empty list means consistent.

import type { P4Declarations, P4Table } from '../p4/declarations'
import { BFRT_QUEUE_HELPER } from './render/bfrt'
import { cliCommandLines } from './render/cli'

function tableOf(d: P4Declarations, name: string): P4Table | undefined {
  return d.tables.find((t) => t.name === name) ?? (name.includes('.') ? undefined : d.tables.filter((t) => t.name.endsWith('.' + name)).at(0))
}

function actionOf(d: P4Declarations, name: string) {
  return d.actions.find((a) => a.name === name) ?? (name.includes('.') ? undefined : d.actions.filter((a) => a.name.endsWith('.' + name)).at(0))
}

function fits(value: string, bits: number): boolean {
  let v: bigint
  if (/^\d+\.\d+\.\d+\.\d+$/.test(value)) {
    if (bits !== 32) return false
    return value.split('.').every((b) => Number(b) <= 255)
  }
  if (/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(value)) return bits === 48
  try {
    v = BigInt(value)
  } catch {
    return false
  }
  return v >= 0n && v < 1n << BigInt(bits)
}

const NEEDS_PRIORITY = new Set(['ternary', 'range', 'optional'])

/** Parameters whose values name multicast groups or mirror sessions the file must create. */
const GROUP_PARAMS = new Set(['group'])
const SESSION_PARAMS = new Set(['session'])

export function checkCli(file: string, d: P4Declarations): string[] {
  const problems: string[] = []
  const lines = file.split('\n')
  const groupsCreated = new Set<string>()
  const groupsUsed: Array<{ line: number; group: string }> = []
  const sessionsCreated = new Set<string>()
  const sessionsUsed: Array<{ line: number; session: string }> = []
  let nodes = 0
  const cmds = new Set(cliCommandLines(file))
  lines.forEach((raw, i) => {
    const line = raw.trim()
    if (!cmds.has(line)) return
    const at = `line ${i + 1}`
    const w = line.split(/\s+/)
    const bad = (msg: string): void => {
      problems.push(`${at}: ${msg}: ${line}`)
    }
    const checkAction = (tableName: string, actionName: string, params: string[]): void => {
      const t = tableOf(d, tableName)
      if (!t) return bad(`no table '${tableName}' in the program`)
      const a = actionOf(d, actionName)
      if (!a) return bad(`no action '${actionName}' in the program`)
      if (!t.actions.includes(a.name)) return bad(`table ${t.name} has no action ${a.name}`)
      if (params.length !== a.params.length) return bad(`action ${a.name} takes ${a.params.length} parameters, got ${params.length}`)
      a.params.forEach((p, k) => {
        if (!fits(params[k], p.bits)) bad(`parameter ${p.name} of ${a.name} is ${p.bits} bits; '${params[k]}' does not fit`)
        if (GROUP_PARAMS.has(p.name)) groupsUsed.push({ line: i + 1, group: params[k] })
        if (SESSION_PARAMS.has(p.name)) sessionsUsed.push({ line: i + 1, session: params[k] })
      })
    }
    switch (w[0]) {
      case 'table_add': {
        const arrow = w.indexOf('=>')
        if (arrow < 0 || w.length < 3) return bad('table_add needs <table> <action> <keys> => <params>')
        const t = tableOf(d, w[1])
        if (!t) return bad(`no table '${w[1]}' in the program`)
        const keys = w.slice(3, arrow)
        const rest = w.slice(arrow + 1)
        const prio = t.keys.some((k) => NEEDS_PRIORITY.has(k.matchKind))
        const params = prio ? rest.slice(0, -1) : rest
        if (prio && rest.length === 0) bad(`table ${t.name} has ${t.keys.map((k) => k.matchKind).join('/')} keys: a priority is required`)
        if (keys.length !== t.keys.length) return bad(`table ${t.name} has ${t.keys.length} key fields, got ${keys.length}`)
        t.keys.forEach((k, j) => {
          const v = keys[j]
          const form: Record<string, RegExp> = { lpm: /^[^/]+\/\d+$/, ternary: /^[^&]+&&&[^&]+$/, range: /^[^-]+->[^-]+$/ }
          const re = form[k.matchKind] ?? /^[^/&>]+$/
          if (!re.test(v)) bad(`key ${k.field} is ${k.matchKind}; '${v}' is not written that way`)
        })
        checkAction(w[1], w[2], params)
        return
      }
      case 'table_set_default':
        if (w.length < 3) return bad('table_set_default needs <table> <action> [params]')
        return checkAction(w[1], w[2], w.slice(3))
      case 'register_write': {
        const r = d.registers.find((x) => x.name === w[1]) ?? d.registers.find((x) => x.name.endsWith('.' + w[1]))
        if (!r) return bad(`no register '${w[1]}' in the program`)
        if (w.length !== 4) return bad('register_write needs <register> <index> <value>')
        const idx = Number(w[2])
        if (!Number.isInteger(idx) || idx < 0 || idx >= r.size) bad(`index ${w[2]} is outside ${r.name}[${r.size}]`)
        if (r.fields) return bad(`${r.name} holds a struct; register_write cannot write it`)
        if (!fits(w[3], r.bits) && !(r.bits > 0 && Number(w[3]) < 0 && -Number(w[3]) <= 2 ** (r.bits - 1))) bad(`value ${w[3]} does not fit ${r.name} (${r.bits} bits)`)
        return
      }
      case 'mc_mgrp_create':
        if (!d.usesMulticast) bad('the program does not use multicast')
        groupsCreated.add(w[1])
        return
      case 'mc_node_create':
        if (!d.usesMulticast) bad('the program does not use multicast')
        if (w.length < 3) bad('mc_node_create needs <rid> <ports...>')
        nodes++
        return
      case 'mc_node_associate':
        if (!groupsCreated.has(w[1])) bad(`group ${w[1]} is associated before it is created`)
        if (!(Number(w[2]) < nodes)) bad(`node handle ${w[2]} was not created before`)
        return
      case 'mirroring_add':
        if (w.length !== 3) return bad('mirroring_add needs <session> <egress port>')
        sessionsCreated.add(w[1])
        return
      case 'set_queue_rate':
      case 'set_queue_depth':
        if (w.length < 2 || w.length > 3 || w.slice(1).some((x) => !/^\d+$/.test(x))) bad(`${w[0]} takes an integer and an optional port`)
        return
      default:
        bad(`'${w[0]}' is not a command this renderer should emit`)
    }
  })
  for (const g of groupsUsed) if (!groupsCreated.has(g.group)) problems.push(`line ${g.line}: multicast group ${g.group} is never created`)
  for (const s of sessionsUsed) if (!sessionsCreated.has(s.session)) problems.push(`line ${s.line}: mirror session ${s.session} is never added`)
  return problems
}

/** Splits a Python argument list at top-level commas. */
function splitArgs(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of s) {
    if (ch === '[' || ch === '(') depth++
    if (ch === ']' || ch === ')') depth--
    if (ch === ',' && depth === 0) {
      out.push(cur.trim())
      cur = ''
    } else cur += ch
  }
  if (cur.trim()) out.push(cur.trim())
  return out
}

const KEY_ARGS: Record<string, number> = { exact: 1, lpm: 2, ternary: 2, range: 2, optional: 2 }

/** Tofino 1 pktgen: app ids are 3 bits, generator ports are 68..71 of a pipe. */
const PKTGEN_APP_IDS = 8
const PKTGEN_PORTS = new Set([68, 69, 70, 71])

export function checkBfrt(script: string, d: P4Declarations, programName: string): string[] {
  const problems: string[] = []
  const groupsCreated = new Set<string>()
  const groupsUsed: Array<{ line: number; group: string }> = []
  const nodesCreated = new Set<string>()
  const prefix = `bfrt.${programName}.pipe.`
  // The packet generator: what the script configures, and the program's entries that wait for it.
  const pktgenTables = d.tables.filter((t) => t.keys.some((k) => k.field.startsWith('hdr.pktgen.')))
  const buffers = new Map<string, number>()
  const portsEnabled = new Set<string>()
  const apps: Array<{ line: number; appId: number; packets: number }> = []
  const pktgenKeys: Array<{ line: number; field: string; value: number }> = []
  let helperLines = 0
  script.split('\n').forEach((raw, i) => {
    if (raw.trimEnd() === BFRT_QUEUE_HELPER[helperLines % BFRT_QUEUE_HELPER.length] && (helperLines > 0 || raw.startsWith('def '))) {
      helperLines++
      return
    }
    const line = raw.replace(/\s+#.*$/, '').trim()
    if (line === '' || line.startsWith('#')) return
    const bad = (msg: string): void => {
      problems.push(`line ${i + 1}: ${msg}: ${line}`)
    }
    if (helperLines % BFRT_QUEUE_HELPER.length !== 0) {
      bad('the queue-priority helper is incomplete')
      helperLines = 0
    }
    const call = /^([A-Za-z0-9_.]+)\((.*)\)$/.exec(line)
    if (!call) return bad('not a call')
    const [, target, argText] = call
    const args = splitArgs(argText)
    const kw = new Map<string, string>()
    const pos: string[] = []
    for (const a of args) {
      const m = /^([A-Za-z_$][A-Za-z0-9_]*)=(.*)$/.exec(a)
      if (m) kw.set(m[1], m[2])
      else pos.push(a)
    }
    if (target === 'bfrt.complete_operations') return
    const need = (keys: string[]): boolean => {
      const missing = keys.filter((k) => !kw.has(k))
      if (missing.length > 0) bad(`${target} without ${missing.join(', ')}`)
      return missing.length === 0
    }
    if (target === 'p4lab_queue_priority') {
      if (helperLines < BFRT_QUEUE_HELPER.length) bad('p4lab_queue_priority is called before it is defined')
      if (!need(['dev_port', 'qid', 'priority'])) return
      if (!(Number(kw.get('qid')) >= 0 && Number(kw.get('qid')) < 32)) bad(`qid ${kw.get('qid')} is not a Tofino queue id (0..31)`)
      if (!(Number(kw.get('priority')) >= 0 && Number(kw.get('priority')) <= 7)) bad(`priority ${kw.get('priority')} is outside 0..7`)
      return
    }
    if (target.startsWith('bfrt.tf1.pktgen.')) {
      if (pktgenTables.length === 0) bad('the program does not use the packet generator (no table keyed on hdr.pktgen)')
      if (target === 'bfrt.tf1.pktgen.port_cfg.mod') {
        if (!need(['dev_port', 'pktgen_enable'])) return
        if (!PKTGEN_PORTS.has(Number(kw.get('dev_port')) & 0x7f)) bad(`dev_port ${kw.get('dev_port')} is not a packet-generator port (68..71 of a pipe)`)
        if (kw.get('pktgen_enable') === 'True') portsEnabled.add(kw.get('dev_port')!)
        return
      }
      if (target === 'bfrt.tf1.pktgen.pkt_buffer.mod') {
        if (!need(['pkt_buffer_offset', 'pkt_buffer_size', 'buffer'])) return
        const hex = /^bytes\.fromhex\('([0-9a-f]*)'\)$/.exec(kw.get('buffer')!)
        if (!hex) return bad("buffer must be bytes.fromhex('...')")
        if (hex[1].length !== 2 * Number(kw.get('pkt_buffer_size'))) bad(`buffer has ${hex[1].length / 2} bytes, pkt_buffer_size says ${kw.get('pkt_buffer_size')}`)
        buffers.set(kw.get('pkt_buffer_offset')!, Number(kw.get('pkt_buffer_size')))
        return
      }
      if (target === 'bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_periodic') {
        const fields = ['app_id', 'app_enable', 'timer_nanosec', 'pkt_len', 'pkt_buffer_offset', 'pipe_local_source_port', 'batch_count_cfg', 'packets_per_batch_cfg']
        if (!need(fields)) return
        const appId = Number(kw.get('app_id'))
        if (!(Number.isInteger(appId) && appId >= 0 && appId < PKTGEN_APP_IDS)) bad(`app_id ${kw.get('app_id')} is not a Tofino 1 app id (0..7)`)
        if (!(Number(kw.get('timer_nanosec')) > 0)) bad('timer_nanosec must be positive')
        const size = buffers.get(kw.get('pkt_buffer_offset')!)
        if (size === undefined) bad(`no pkt_buffer is written at offset ${kw.get('pkt_buffer_offset')} before the app`)
        else if (size !== Number(kw.get('pkt_len'))) bad(`pkt_len ${kw.get('pkt_len')} differs from the ${size}-byte buffer`)
        if (!portsEnabled.has(kw.get('pipe_local_source_port')!)) bad(`pktgen is not enabled on port ${kw.get('pipe_local_source_port')} before the app`)
        apps.push({ line: i + 1, appId, packets: (Number(kw.get('batch_count_cfg')) + 1) * (Number(kw.get('packets_per_batch_cfg')) + 1) })
        return
      }
      return bad(`unknown pktgen call ${target}`)
    }
    if (target === 'bfrt.port.port.add') {
      for (const k of ['DEV_PORT', 'SPEED', 'FEC', 'PORT_ENABLE']) if (!kw.has(k)) bad(`bfrt.port.port.add without ${k}`)
      return
    }
    if (target === 'bfrt.pre.node.add') {
      if (!d.usesMulticast) bad('the program does not use multicast')
      for (const k of ['MULTICAST_NODE_ID', 'MULTICAST_RID', 'MULTICAST_LAG_ID', 'DEV_PORT']) if (!kw.has(k)) bad(`bfrt.pre.node.add without ${k}`)
      nodesCreated.add(kw.get('MULTICAST_NODE_ID') ?? '')
      return
    }
    if (target === 'bfrt.pre.mgid.add') {
      if (!d.usesMulticast) bad('the program does not use multicast')
      const ids = (kw.get('MULTICAST_NODE_ID') ?? '').replace(/[[\]]/g, '').split(',').map((x) => x.trim()).filter(Boolean)
      for (const id of ids) if (!nodesCreated.has(id)) bad(`node ${id} is not created before group ${kw.get('MGID')}`)
      const n = ids.length
      for (const k of ['MULTICAST_NODE_L1_XID_VALID', 'MULTICAST_NODE_L1_XID']) {
        const len = (kw.get(k) ?? '').replace(/[[\]]/g, '').split(',').filter((x) => x.trim()).length
        if (len !== n) bad(`${k} has ${len} elements for ${n} nodes`)
      }
      groupsCreated.add(kw.get('MGID') ?? '')
      return
    }
    if (!target.startsWith(prefix)) return bad(`not a call into bfrt.${programName}`)
    const path = target.slice(prefix.length).split('.')
    const method = path.pop()!
    const objName = path.join('.')
    if (method === 'mod') {
      const r = d.registers.find((x) => x.name === objName)
      if (!r) return bad(`no register '${objName}' in the program`)
      const idx = Number(kw.get('REGISTER_INDEX'))
      if (!Number.isInteger(idx) || idx < 0 || idx >= r.size) bad(`REGISTER_INDEX ${kw.get('REGISTER_INDEX')} is outside ${r.name}[${r.size}]`)
      const dataKeys = [...kw.keys()].filter((k) => k !== 'REGISTER_INDEX')
      const want = r.fields ? r.fields.map((f) => f.name) : ['f1']
      for (const k of dataKeys) if (!want.includes(k)) bad(`${r.name} has no data field '${k}' (it has ${want.join(', ')})`)
      return
    }
    const t = d.tables.find((x) => x.name === objName)
    if (!t) return bad(`no table '${objName}' in the program`)
    const m = /^(add_with|set_default_with)_(.+)$/.exec(method)
    if (!m) return bad(`unknown table method '${method}'`)
    const actionName = m[2] === 'NoAction' ? 'NoAction' : `${t.control}.${m[2]}`
    const a = d.actions.find((x) => x.name === actionName)
    if (!a || !t.actions.includes(actionName)) return bad(`table ${t.name} has no action ${actionName}`)
    const paramNames = a.params.map((p) => p.name)
    const given = [...kw.keys()].filter((k) => k !== 'MATCH_PRIORITY')
    const keyWant = m[1] === 'add_with' ? t.keys.reduce((s, k) => s + (KEY_ARGS[k.matchKind] ?? 1), 0) : 0
    // Keys are positional; action data by keyword (or positionally after the keys).
    const positionalParams = pos.length - keyWant
    if (positionalParams < 0) return bad(`table ${t.name} needs ${keyWant} key values, got ${pos.length}`)
    if (given.length + positionalParams !== paramNames.length) return bad(`action ${a.name} takes ${paramNames.length} parameters, got ${given.length + positionalParams}`)
    for (const g of given) if (!paramNames.includes(g)) bad(`action ${a.name} has no parameter '${g}'`)
    const prio = t.keys.some((k) => NEEDS_PRIORITY.has(k.matchKind))
    if (m[1] === 'add_with' && prio !== kw.has('MATCH_PRIORITY')) bad(prio ? 'a priority is required' : 'this table takes no priority')
    if (m[1] === 'add_with') {
      let k = 0
      for (const key of t.keys) {
        if (key.field.startsWith('hdr.pktgen.')) pktgenKeys.push({ line: i + 1, field: key.field, value: Number(pos[k]) })
        k += KEY_ARGS[key.matchKind] ?? 1
      }
    }
    for (const p of a.params) {
      const v = kw.get(p.name)
      if (v !== undefined && !fits(v, p.bits)) bad(`parameter ${p.name} of ${a.name} is ${p.bits} bits; '${v}' does not fit`)
      if (v !== undefined && GROUP_PARAMS.has(p.name)) groupsUsed.push({ line: i + 1, group: v })
    }
  })
  for (const g of groupsUsed) if (!groupsCreated.has(g.group)) problems.push(`line ${g.line}: multicast group ${g.group} is never created`)
  // Entries that match generated packets need an app that generates them.
  for (const k of pktgenKeys) {
    if (k.field === 'hdr.pktgen.app_id' && !apps.some((a) => a.appId === k.value)) {
      problems.push(`line ${k.line}: the entry waits for pktgen app ${k.value}, which the script never configures`)
    }
    if (k.field === 'hdr.pktgen.packet_id' && !apps.some((a) => k.value < a.packets)) {
      problems.push(`line ${k.line}: the entry waits for generated packet ${k.value}, but no pktgen app generates that many per tick`)
    }
  }
  return problems
}
