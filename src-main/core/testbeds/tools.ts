// A tool Check looks for on a host, and the ones hosts of every kind run: each says why a run
// needs it and how to install it, so that "not ready" says what to do. Which tools a host of a
// kind and role needs is the kind's to say (core/targets/<kind>/kind.ts).
import { parseIperf3Version, parseIpVersion, parsePythonVersion } from './versions'

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


export const python3: ToolSpec = {
  name: 'python3',
  kind: 'version',
  args: ['--version'],
  parse: parsePythonVersion,
  required: true,
  why: "runs p4lab's traffic agent (flow servers and clients, probe senders, the INT relay; standard library only)",
  install: 'Debian/Ubuntu package python3',
}
export const iperf3: ToolSpec = {
  name: 'iperf3',
  kind: 'version',
  args: ['--version'],
  parse: parseIperf3Version,
  required: false,
  why: "not used by the runs (the traffic agent is p4lab's own); recorded when present",
  install: 'Debian/Ubuntu package iperf3',
}
export const ip: ToolSpec = {
  name: 'ip',
  kind: 'version',
  args: ['-V'],
  parse: parseIpVersion,
  required: true,
  why: 'makes the network namespaces and veth pairs of the fabric (ip netns, ip -batch)',
  install: 'Debian/Ubuntu package iproute2',
}

/** A host that only runs traffic agents (a testbed's 'traffic' hosts). */
export const TRAFFIC: ToolSpec[] = [python3, iperf3, { ...ip, why: 'confirms that the host holds its fabric address (ip addr)' }]
