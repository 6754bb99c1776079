// A Tofino switch's front-panel ports from the testbed's mapping (contract/testbed-mapping.ts):
// the bfrt_python script that adds each mapped port through the port manager ($PORT table), and
// the one that reads back whether each came up, with its parser. Pure: the driver runs them with
// run_bfshell.sh -b like its other scripts.
//
// The DEV_PORT of a front-panel port is the SDE's to say: the script asks $PORT_HDL_INFO for it
// (CONN_ID = cage, CHNL_ID = lane), so a board with another numbering is handled there.
import type { TofinoMapping, TofinoPortMapping } from '../../../contract/testbed-mapping'
import type { ControlPlaneState } from '../../controlplane'

const FEC: Record<TofinoPortMapping['fec'], string> = { none: 'BF_FEC_TYP_NONE', fc: 'BF_FEC_TYP_FIRECODE', rs: 'BF_FEC_TYP_REED_SOLOMON' }
const AN: Record<TofinoPortMapping['autoneg'], string> = { default: 'PM_AN_DEFAULT', enable: 'PM_AN_FORCE_ENABLE', disable: 'PM_AN_FORCE_DISABLE' }

/** Speeds each chip's SerDes can run a port at (Tofino 2 adds 200G and 400G). */
export const TOFINO1_SPEEDS = ['10G', '25G', '40G', '50G', '100G'] as const

/** Problems of one switch's ports on a chip: a speed it cannot run, a FEC the speed does not take. */
export function portProblems(sw: string, ports: readonly TofinoPortMapping[], chip: 'tofino' | 'tofino2' = 'tofino'): string[] {
  const out: string[] = []
  for (const p of ports) {
    const where = `${sw} port ${p.port} (${p.frontPanel})`
    if (chip === 'tofino' && !(TOFINO1_SPEEDS as readonly string[]).includes(p.speed)) out.push(`${where}: ${p.speed} needs a Tofino 2; Tofino runs ${TOFINO1_SPEEDS.join(', ')}`)
    // Firecode is defined for 10G/25G/40G/50G lanes (IEEE 802.3 clause 74); 100G and up take Reed-Solomon or none.
    if (p.fec === 'fc' && ['100G', '200G', '400G'].includes(p.speed)) out.push(`${where}: Firecode FEC does not run at ${p.speed}; use 'rs' or 'none'`)
    if (p.fec !== 'rs' && ['200G', '400G'].includes(p.speed)) out.push(`${where}: ${p.speed} needs Reed-Solomon FEC ('rs')`)
  }
  return out
}

function cageLane(fp: string): [number, number] {
  const [c, l] = fp.split('/').map(Number)
  return [c, l]
}

/**
 * The bfrt_python script adding the switch's mapped ports: each front-panel port resolved to
 * its DEV_PORT, added with its speed, FEC and auto-negotiation, enabled. Prints `port <fabric
 * port> <front panel> dev <DEV_PORT>` per port; an exception stops it (the driver fails on it).
 */
export function portAddScript(sw: string, ports: readonly TofinoPortMapping[]): string {
  const lines = [`# p4lab: front-panel ports of ${sw}`, 'def p4lab_dev(cage, lane):', "    return bfrt.port.port_hdl_info.get(CONN_ID=cage, CHNL_ID=lane, print_ents=False).data[b'$DEV_PORT']", '']
  for (const p of [...ports].sort((a, b) => a.port - b.port)) {
    const [c, l] = cageLane(p.frontPanel)
    lines.push(
      `d = p4lab_dev(${c}, ${l})`,
      `bfrt.port.port.add(DEV_PORT=d, SPEED='BF_SPEED_${p.speed}', FEC='${FEC[p.fec]}', AUTO_NEGOTIATION='${AN[p.autoneg]}', PORT_ENABLE=True)`,
      `print('port ${p.port} ${p.frontPanel} dev %d' % d)`,
    )
  }
  lines.push(`print('p4lab ports done ${sw}')`, '')
  return lines.join('\n')
}

/** The bfrt_python script reading back each mapped port: `up <fabric port> <front panel> True|False`. */
export function portStatusScript(sw: string, ports: readonly TofinoPortMapping[]): string {
  const lines = [`# p4lab: are the ports of ${sw} up`]
  for (const p of [...ports].sort((a, b) => a.port - b.port)) {
    const [c, l] = cageLane(p.frontPanel)
    lines.push(
      `d = bfrt.port.port_hdl_info.get(CONN_ID=${c}, CHNL_ID=${l}, print_ents=False).data[b'$DEV_PORT']`,
      `print('up ${p.port} ${p.frontPanel} %s' % bfrt.port.port.get(DEV_PORT=d, print_ents=False).data[b'$PORT_UP'])`,
    )
  }
  lines.push(`print('p4lab status done ${sw}')`, '')
  return lines.join('\n')
}

export interface PortStatus {
  /** Every mapped port answered. */
  complete: boolean
  up: Array<{ port: number; frontPanel: string }>
  down: Array<{ port: number; frontPanel: string }>
}

/** Parses bfshell's output of portStatusScript (bfshell echoes and decorates; only our lines count). */
export function parsePortStatus(sw: string, text: string, ports: readonly TofinoPortMapping[]): PortStatus {
  const seen = new Map<number, boolean>()
  for (const line of text.split('\n')) {
    const m = /^up (\d+) (\d+\/\d) (True|False)\s*$/.exec(line.trim())
    if (m) seen.set(Number(m[1]), m[3] === 'True')
  }
  const done = text.split('\n').some((l) => l.trim() === `p4lab status done ${sw}`)
  const up = ports.filter((p) => seen.get(p.port) === true).map((p) => ({ port: p.port, frontPanel: p.frontPanel }))
  const down = ports.filter((p) => seen.get(p.port) !== true).map((p) => ({ port: p.port, frontPanel: p.frontPanel }))
  return { complete: done && ports.every((p) => seen.has(p.port)), up, down }
}

/** Why traffic cannot start yet (ports down, or a status read cut short), or null when every port is up. */
export function portsNotUp(sw: string, s: PortStatus): string | null {
  if (s.down.length === 0 && s.complete) return null
  const down = s.down.map((p) => `port ${p.port} (${p.frontPanel})`).join(', ')
  return s.complete ? `${sw}: ${down} did not come up: check the cable, its speed and FEC on both ends` : `${sw}: the port status read did not finish; ports not known to be up: ${down || 'none'}`
}

/** The mapped ports of one switch, or null when the mapping leaves it out. */
export function mappedPorts(m: TofinoMapping, sw: string): TofinoPortMapping[] | null {
  return m.switches.find((s) => s.switch === sw)?.ports ?? null
}

/**
 * A mapping against a fabric before a run: every switch on an SDE host that runs it (`placed`),
 * and on hardware every fabric port on a front-panel port, at a speed and FEC the chip runs.
 */
export function mappedPortProblems(state: ControlPlaneState, m: TofinoMapping, placed: readonly string[], hardware: boolean): string[] {
  const problems: string[] = []
  for (const sw of state.switches) {
    const ms = m.switches.find((x) => x.switch === sw.name)
    if (!ms) {
      problems.push(`switch ${sw.name} is on no SDE host of the mapping`)
      continue
    }
    if (!placed.includes(sw.name)) problems.push(`switch ${sw.name}: its host ${ms.host} is not an sde host of the testbed`)
    if (!hardware) continue
    const missing = sw.ports.filter((q) => !ms.ports.some((x) => x.port === q.port)).map((q) => q.port)
    if (missing.length) problems.push(`${sw.name}: port${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'have' : 'has'} no front-panel port in the mapping`)
    problems.push(...portProblems(sw.name, ms.ports))
  }
  return problems
}
