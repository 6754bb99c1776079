// BMv2: simple_switch processes on a Linux host, the v1model programs compiled by
// p4c-bm2-ss, and simple_switch_CLI files for the control plane (core/targets/kind.ts says
// what a kind gives; the driver is driver.ts).
import { Bmv2Settings, type HostRole } from '../../../contract/schemas'
import { bmv2QueueMapping, cliCommandLines, intPlan, renderCli } from '../../controlplane'
import { TRAFFIC, ip, iperf3, python3, type ToolSpec } from '../../testbeds/tools'
import { firstVersion, parseBmv2Version, parseMininetVersion, parseP4cVersion } from '../../testbeds/versions'
import type { RemoteKindSpec } from '../kind'
import { describePlan, mappingProblems, planMultiHost } from './multihost'

/** p4lang's own packages: their OBS project publishes them for some Debian and Ubuntu releases only. */
const P4LANG_OBS = "p4lang's OBS repository home:p4lang (see docs/TESTBEDS.md for which releases it covers)"

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

export const BMV2: RemoteKindSpec<'bmv2'> = {
  kind: 'bmv2',
  roles: ['switch-host', 'traffic'],
  parseSettings: (raw) => Bmv2Settings.parse(raw),
  checkPlan: async (role: HostRole) => ({ env: {}, checked: [], tools: role === 'switch-host' ? BMV2_SWITCH_HOST : TRAFFIC }),
  tools: BMV2_SWITCH_HOST,
  compiler: {
    tool: 'p4c-bm2-ss',
    arch: 'v1model',
    outputs: (name) => ({ json: `${name}.json`, p4info: `${name}.p4info.txtpb` }),
    argv: (compiler, flags, out, main) => [compiler, '--p4v', '16', ...flags, '--p4runtime-files', `../out/${out.p4info}`, '-o', `../out/${out.json}`, main],
  },
  controlPlane: {
    ext: 'cli',
    render(state, int) {
      const plan = int ? intPlan(state, int) : undefined
      return state.switches.map((sw) => {
        const text = renderCli(state, sw.name, undefined, plan ? { int: plan } : {})
        // simple_switch_CLI takes command lines only: it rejects comments.
        return { text, deployText: cliCommandLines(text).join('\n') + '\n' }
      })
    },
    queues: (state) => bmv2QueueMapping(state),
  },
  mapping: {
    problems(m, need) {
      const problems: Array<{ path: ReadonlyArray<PropertyKey>; message: string }> = []
      const seen = new Map<string, string>()
      m.hosts.forEach((h, i) => {
        need(['hosts', i, 'host'], h.host, 'switch-host')
        for (const s of h.switches) {
          if (seen.has(s)) problems.push({ path: ['hosts', i, 'switches'], message: `switch ${s} is also on ${seen.get(s)}; place it on one host` })
          seen.set(s, h.host)
        }
      })
      return problems
    },
    preview(state, m, hosts) {
      const problems = mappingProblems(state, m, hosts)
      // Names as a run makes them, with a stand-in prefix shown as <run>: each run has its own.
      const lines = problems.length ? [] : describePlan(planMultiHost(state, 'p4x-', m, hosts)).map((l) => l.replace(/p4x-/g, '<run>'))
      return { lines, problems }
    },
  },
}
