// What Check looks for on a host, by testbed kind and host role (issue 5, item 2).
import type { Bmv2Settings, HostRole, TofinoSettings } from '../../contract/schemas'
import {
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
}

const python3: ToolSpec = { name: 'python3', kind: 'version', args: ['--version'], parse: parsePythonVersion, required: true }
const iperf3 = (required: boolean): ToolSpec => ({ name: 'iperf3', kind: 'version', args: ['--version'], parse: parseIperf3Version, required })
const ip: ToolSpec = { name: 'ip', kind: 'version', args: ['-V'], parse: parseIpVersion, required: true }

/** A host that only runs traffic agents (Python 3, the standard library) and maybe iperf3. */
const TRAFFIC: ToolSpec[] = [python3, iperf3(false), ip]

export function bmv2Tools(role: HostRole, settings: Bmv2Settings): ToolSpec[] {
  if (role !== 'switch-host') return TRAFFIC
  return [
    { name: 'p4c', kind: 'version', args: ['--version'], parse: parseP4cVersion, required: false },
    { name: 'p4c-bm2-ss', kind: 'version', args: ['--version'], parse: parseP4cVersion, required: true },
    { name: 'simple_switch', kind: 'version', args: ['--version'], parse: parseBmv2Version, required: true },
    // It connects to a switch when run; finding it is enough.
    { name: 'simple_switch_CLI', kind: 'present', required: true },
    { name: 'mn', kind: 'version', args: ['--version'], parse: parseMininetVersion, required: settings.bringUp === 'mininet' },
    python3,
    iperf3(false),
    ip,
  ]
}

/** On an SDE host; `$SDE` and `$SDE_INSTALL` are checked separately (see check.ts). */
export function tofinoTools(role: HostRole, settings: TofinoSettings): ToolSpec[] {
  if (role !== 'sde') return TRAFFIC
  return [
    { name: 'bf-p4c', kind: 'version', args: ['--version'], parse: parseBfP4cVersion, required: true },
    // These start or attach to switchd when run; finding them is enough.
    { name: 'run_switchd.sh', kind: 'present', required: true },
    { name: 'run_bfshell.sh', kind: 'present', required: true },
    { name: 'run_tofino_model.sh', kind: 'present', required: settings.target === 'model' },
    python3,
  ]
}
