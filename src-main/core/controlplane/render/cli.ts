// simple_switch_CLI command files. Syntax checked against p4lang/behavioral-model
// docs/runtime_CLI.md and tools/runtime_CLI.py, and the captured session in
// test/fixtures/controlplane/bmv2/cli-session-ok.cmds:
//   table_add <table> <action> <match fields> => <action params> [priority]
//     (lpm as value/len, ternary as value&&&mask, range as lo->hi; priority only with
//     ternary/range keys; 32-bit values may be dotted IPv4, 48-bit ones MACs)
//   table_set_default <table> <action> <action params>
//   mc_mgrp_create <group id>; mc_node_create <rid> <ports...>;
//   mc_node_associate <group id> <node handle>
//   register_write <register> <index> <value>
//   set_queue_rate <rate_pps> [<egress_port>]; set_queue_depth <nb_pkts> [<egress_port>]
// mc_node_create prints the handle it chose; handles are assigned from 0 upwards on a fresh
// switch (the docs say not to rely on it, the captured session shows it), so a file is
// meant for a freshly started simple_switch and names the handles it expects in comments.
// A driver that wants certainty reads "node was created with handle H" from the output.
//
// Lines starting with '#' are comments for people: Python's cmd module (which the CLI is
// built on) would answer them with "*** Unknown syntax", so a driver sends only
// cliCommandLines(file).

import { switchOf } from '../compute'
import { intCliCommands, intSwitchPlan, type IntPlan } from '../int'
import { bmv2QueueMapping, type Bmv2QueueOptions } from '../../../model/controlplane/queues'
import type { P4Iface } from '../../../model/controlplane/module'
import { programFor } from '../program'
import type { ControlPlaneState, MatchField, ParamValue, TableEntry } from '../../../model/controlplane/types'

export interface CliOptions extends Bmv2QueueOptions {
  /** BMv2 port number of a fabric port (default: the same number). */
  bmv2Port?: (port: number) => number
  /**
   * INT postcards (a program built with -DP4LAB_INT): the mirror session, intWatch entries and
   * intReport's default for this switch. Absent: no INT command (the default build has no INT tables).
   */
  int?: IntPlan
}

function matchText(m: MatchField): string {
  switch (m.kind) {
    case 'exact':
      return String(m.value)
    case 'lpm':
      return `${m.value}/${m.prefixLen}`
    case 'ternary':
      return `${m.value}&&&${m.mask}`
    case 'range':
      return `${m.lo}->${m.hi}`
  }
}

export function cliEntry(e: TableEntry): string {
  const params = e.params.map((p: ParamValue) => String(p)).join(' ')
  if (e.isDefault) return `table_set_default ${e.table} ${e.action}${params ? ' ' + params : ''}`
  const keys = e.match.map(matchText).join(' ')
  const prio = e.priority !== undefined ? ` ${e.priority}` : ''
  return `table_add ${e.table} ${e.action} ${keys} =>${params ? ' ' + params : ''}${prio}`
}

/** The simple_switch_CLI command file of one switch. */
export function renderCli(state: ControlPlaneState, which: string | number, iface?: P4Iface, opts: CliOptions = {}): string {
  const sw = switchOf(state, which)
  const port = opts.bmv2Port ?? ((p: number) => p)
  const mapping = bmv2QueueMapping(state, opts)
  const prog = programFor(state, sw, 'bmv2', iface, port, mapping.scale)
  const out: string[] = []
  out.push(`# p4lab control plane: ${state.scheme} on ${sw.name} (switch id ${sw.switchId}${sw.torIndex >= 0 ? `, ToR ${sw.torIndex}` : ''})`)
  out.push(`# BMv2 program ${prog.programName}; simple_switch_CLI commands for a freshly started switch.`)
  out.push(`# Generated from the fabric by src-main/core/controlplane; edit the experiment, not this file.`)
  let lastComment = ''
  const section = (title: string): void => {
    out.push('', `# ${title}`)
    lastComment = ''
  }
  section('Tables')
  for (const e of prog.entries) {
    if (e.comment && e.comment !== lastComment) {
      out.push(`# ${e.comment}`)
      lastComment = e.comment
    }
    out.push(cliEntry(e))
  }
  if (prog.mcastGroups.length > 0) {
    section('Multicast groups (node handles are expected from 0 upwards)')
    let handle = 0
    for (const g of prog.mcastGroups) {
      out.push(`# group ${g.id}: ${g.purpose}`)
      out.push(`mc_mgrp_create ${g.id}`)
      out.push(`mc_node_create 0 ${g.ports.map(port).join(' ')}`)
      out.push(`mc_node_associate ${g.id} ${handle}`)
      handle++
    }
  }
  if (prog.registers.length > 0) {
    section('Registers')
    lastComment = ''
    for (const r of prog.registers) {
      if (r.comment && r.comment !== lastComment) {
        out.push(`# ${r.comment}`)
        lastComment = r.comment
      }
      out.push(`register_write ${r.register} ${r.index} ${r.value}`)
    }
  }
  if (prog.mirrors.length > 0) {
    section('Mirror sessions (mirroring_add <session> <egress port>)')
    for (const m of prog.mirrors) out.push(`mirroring_add ${m.session} ${m.port}`)
  }
  if (opts.int) {
    const p = intSwitchPlan(opts.int, sw.name)
    if (prog.mirrors.some((m) => m.session === p.session)) throw new Error(`${sw.name}: mirror session ${p.session} is the program's own and INT's`)
    section(
      `INT postcards (built with -DP4LAB_INT): ports ${p.watch.map(port).join(' ') || '(none)'} report to the collector on port ${p.port}, ` +
        `UDP ${p.dstIp}:${p.udpPort}, Node ID ${p.nodeId}`,
    )
    out.push(...intCliCommands(p, port))
  }
  section(
    `Queues: fabric rates x ${fmtScale(mapping.scale)} (fastest link at most ${mapping.ceilingBps / 1e6} Mbps), in ${mapping.packetBytes}-byte packets per second`,
  )
  for (const q of mapping.ports.filter((x) => x.switch === sw.name)) {
    out.push(`set_queue_rate ${q.pps} ${port(q.port)}`)
    out.push(`set_queue_depth ${q.depthPackets} ${port(q.port)}`)
  }
  return out.join('\n') + '\n'
}

function fmtScale(s: number): string {
  return s === 1 ? '1' : s.toPrecision(4).replace(/\.?0+$/, '')
}

/** The command lines of a rendered file, without comments and blank lines: what the CLI is sent. */
export function cliCommandLines(file: string): string[] {
  return file
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
}
