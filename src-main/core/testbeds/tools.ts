// What Check looks for on a host, by testbed kind and host role (issue 5, item 2), and, for
// each tool, why a run needs it and how to install it: a missing tool is reported with both,
// so that "not ready" says what to do.
import type { Bmv2Settings, HostRole, TofinoSettings } from '../../contract/schemas'
import {
  firstVersion,
  parseBfP4cVersion,
  parseBmv2Version,
  parseIperf3Version,
  parseIpVersion,
  parseMininetVersion,
  parseP4cVersion,
  parsePythonVersion,
} from './versions'

export interface ToolSpec {
  /** As shown: `p4c`, `simple_switch_CLI`, `run_switchd.sh`. */
  name: string
  /** 'version': run it with `args` and parse; 'present': only find it (running it would do something). */
  kind: 'version' | 'present'
  args?: string[]
  parse?: (out: string) => string | null
  required: boolean
  /** What the run does with it, and what goes wrong without it. */
  why: string
  /** Where it comes from (Debian/Ubuntu package, or how else to get it). */
  install: string
}

/** p4lang's own packages: their OBS project publishes them for some Debian and Ubuntu releases only. */
const P4LANG_OBS = "p4lang's OBS repository home:p4lang (see docs/TESTBEDS.md for which releases it covers)"

const python3: ToolSpec = {
  name: 'python3',
  kind: 'version',
  args: ['--version'],
  parse: parsePythonVersion,
  required: true,
  why: "runs p4lab's traffic agent (flow servers and clients, probe senders, the INT relay; standard library only)",
  install: 'Debian/Ubuntu package python3',
}
const iperf3: ToolSpec = {
  name: 'iperf3',
  kind: 'version',
  args: ['--version'],
  parse: parseIperf3Version,
  required: false,
  why: "not used by the runs (the traffic agent is p4lab's own); recorded when present",
  install: 'Debian/Ubuntu package iperf3',
}
const ip: ToolSpec = {
  name: 'ip',
  kind: 'version',
  args: ['-V'],
  parse: parseIpVersion,
  required: true,
  why: 'makes the network namespaces and veth pairs of the fabric (ip netns, ip -batch)',
  install: 'Debian/Ubuntu package iproute2',
}

/** A host that only runs traffic agents (a Tofino hardware testbed's fabric hosts). */
const TRAFFIC: ToolSpec[] = [python3, iperf3, { ...ip, why: 'confirms that the host holds its fabric address (ip addr)' }]

/** On the BMv2 switch host: what the driver runs there (bringUp does not change it: see mn). */
const BMV2_SWITCH_HOST: ToolSpec[] = [
  {
    name: 'p4c',
    kind: 'version',
    args: ['--version'],
    parse: parseP4cVersion,
    required: false,
    why: 'is not called (p4lab runs p4c-bm2-ss directly); its version is recorded',
    install: `p4lang-p4c from ${P4LANG_OBS}, or build p4lang/p4c`,
  },
  {
    name: 'p4c-bm2-ss',
    kind: 'version',
    args: ['--version'],
    parse: parseP4cVersion,
    required: true,
    why: 'compiles the v1model programs to BMv2 JSON (the build step; a run compiles on this machine instead when it has p4c-bm2-ss)',
    install: `p4lang-p4c from ${P4LANG_OBS}, or build p4lang/p4c`,
  },
  {
    name: 'simple_switch',
    kind: 'version',
    args: ['--version'],
    parse: parseBmv2Version,
    required: true,
    why: 'is every switch of the fabric (one process per switch)',
    install: `p4lang-bmv2 from ${P4LANG_OBS}, or build p4lang/behavioral-model`,
  },
  // It connects to a switch when run; finding it is enough.
  {
    name: 'simple_switch_CLI',
    kind: 'present',
    required: true,
    why: "loads each switch's tables and reads its counters and registers (telemetry)",
    install: `p4lang-bmv2 from ${P4LANG_OBS}, or build p4lang/behavioral-model with its thrift runtime CLI`,
  },
  {
    name: 'ethtool',
    kind: 'version',
    args: ['--version'],
    parse: firstVersion,
    required: true,
    why:
      'turns checksum offloads off on the veths; with them on, the kernel leaves TCP checksums unfilled, ' +
      'simple_switch forwards the packets byte for byte, the receivers drop them, and every TCP flow through the fabric fails',
    install: 'Debian/Ubuntu package ethtool',
  },
  {
    name: 'mn',
    kind: 'version',
    args: ['--version'],
    parse: parseMininetVersion,
    // The driver brings the topology up with netns + veth itself, whatever bringUp says.
    required: false,
    why: 'not used: p4lab makes the namespaces and veths itself (bringUp mininet is served the same way)',
    install: 'Debian/Ubuntu package mininet',
  },
  python3,
  iperf3,
  ip,
]

export function bmv2Tools(role: HostRole, _settings: Bmv2Settings): ToolSpec[] {
  return role === 'switch-host' ? BMV2_SWITCH_HOST : TRAFFIC
}

const SDE = 'the Intel P4 Studio SDE (not packaged): install it, then set sde in the testbed settings or export SDE in the login environment'

/** On an SDE host; `$SDE` and `$SDE_INSTALL` are checked separately (see check.ts). */
export function tofinoTools(role: HostRole, settings: Pick<TofinoSettings, 'target'>): ToolSpec[] {
  if (role !== 'sde') return TRAFFIC
  const model = settings.target === 'model'
  return [
    { name: 'bf-p4c', kind: 'version', args: ['--version'], parse: parseBfP4cVersion, required: true, why: 'compiles the TNA programs (the build step)', install: SDE },
    // These start or attach to switchd when run; finding them is enough.
    { name: 'run_switchd.sh', kind: 'present', required: true, why: 'starts bf_switchd with the compiled program', install: SDE },
    { name: 'run_bfshell.sh', kind: 'present', required: true, why: "loads each switch's tables and reads its counters and registers (bfrt_python)", install: SDE },
    { name: 'run_tofino_model.sh', kind: 'present', required: model, why: 'starts tofino-model (target model only)', install: SDE },
    python3,
    // tofino-model's hosts are namespaces joined to its ports by veths.
    { ...ip, required: model, why: `${ip.why} (target model only)` },
  ]
}

/** Why the `$SDE` / `$SDE_INSTALL` folders matter, and where they come from. */
export const SDE_DIRS = {
  SDE: { why: "the SDE's folder, holding run_switchd.sh, run_bfshell.sh and run_tofino_model.sh", install: SDE },
  SDE_INSTALL: { why: "the SDE's install folder, holding bin/bf-p4c and the switchd libraries", install: SDE },
} as const

/** Why a run needs the tool named, and where it comes from, when Check knows it. */
export function describeTool(name: string): { why: string; install: string } | undefined {
  const t = [...BMV2_SWITCH_HOST, ...tofinoTools('sde', { target: 'model' })].find((x) => x.name === name)
  return t && { why: t.why, install: t.install }
}
