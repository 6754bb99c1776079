// Tofino: bf_switchd from the Intel SDE on hardware or tofino-model, the TNA programs compiled
// by bf-p4c, and bfrt_python scripts for the control plane (core/targets/kind.ts says what a
// kind gives; the driver is driver.ts).
import { TofinoSettings, type HostRole, type ToolCheck } from '../../../contract/schemas'
import { renderBfrt } from '../../controlplane'
import { TRAFFIC, ip, python3, type ToolSpec } from '../../testbeds/tools'
import { parseBfP4cVersion, sdeVersionFromPath } from '../../testbeds/versions'
import type { HostProbe, RemoteKindSpec } from '../kind'

const SDE = 'the Intel P4 Studio SDE (not packaged): install it, then set sde in the testbed settings or export SDE in the login environment'

/** On an SDE host; `$SDE` and `$SDE_INSTALL` are checked first (sdeEnv). */
function sdeTools(role: HostRole, settings: Pick<TofinoSettings, 'target'>): ToolSpec[] {
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
const SDE_DIRS = {
  SDE: { why: "the SDE's folder, holding run_switchd.sh, run_bfshell.sh and run_tofino_model.sh", install: SDE },
  SDE_INSTALL: { why: "the SDE's install folder, holding bin/bf-p4c and the switchd libraries", install: SDE },
} as const

/** The login environment's $SDE and $SDE_INSTALL, one per line (empty when unset). */
const SDE_ENV = 'printf "%s\\n%s\\n" "${SDE-}" "${SDE_INSTALL-}"'

/** Prints `$1` with a leading `~/` made absolute, when that is a directory; else exits 1. */
const DIR = 'd=$1; case $d in "~/"*) d="$HOME/${d#??}" ;; esac; [ -d "$d" ] || exit 1; printf "%s\\n" "$d"'

/** $SDE and $SDE_INSTALL from the settings, else the login environment; each checked to be a directory. */
async function sdeEnv(probe: HostProbe, settings: TofinoSettings): Promise<{ env: Record<string, string>; checked: ToolCheck[] }> {
  const r = await probe(['sh', '-c', SDE_ENV, 'p4lab-env'])
  const [loginSde = '', loginInstall = ''] = r.stdout.split('\n')
  const env: Record<string, string> = {}
  const checked: ToolCheck[] = []
  const dir = async (name: 'SDE' | 'SDE_INSTALL', fromSettings: string | undefined, fromLogin: string, fallback?: string) => {
    const value = fromSettings ?? (fromLogin || fallback)
    const source = fromSettings ? 'from the testbed settings' : fromLogin ? 'from the login environment' : fallback ? 'default' : ''
    const base = { name: `$${name}`, required: true, checked: true, ...SDE_DIRS[name] }
    if (!value) {
      checked.push({ ...base, found: false, version: null, path: null, detail: 'not set in the testbed settings nor in the login environment' })
      return
    }
    const d = await probe(['sh', '-c', DIR, 'p4lab-dir', value])
    const abs = d.stdout.trim()
    if (d.code !== 0 || !abs) {
      checked.push({ ...base, found: false, version: null, path: value, detail: `${value} (${source}) is not a directory on the host` })
      return
    }
    env[name] = abs
    checked.push({ ...base, found: true, version: name === 'SDE' ? sdeVersionFromPath(abs) : null, path: abs, detail: source })
  }
  await dir('SDE', settings.sde, loginSde)
  await dir('SDE_INSTALL', settings.sdeInstall, loginInstall, env.SDE ? `${env.SDE}/install` : undefined)
  return { env, checked }
}

export const TOFINO: RemoteKindSpec<'tofino'> = {
  kind: 'tofino',
  roles: ['sde', 'traffic'],
  parseSettings: (raw) => TofinoSettings.parse(raw),
  async checkPlan(role, raw, probe) {
    const settings = TofinoSettings.parse(raw)
    const { env, checked } = role === 'sde' ? await sdeEnv(probe, settings) : { env: {}, checked: [] }
    return { env, checked, tools: sdeTools(role, settings) }
  },
  tools: sdeTools('sde', { target: 'model' }),
  compiler: {
    tool: 'bf-p4c',
    arch: 'tna',
    outputs: (name) => ({ tofino: `${name}.tofino`, conf: `${name}.tofino/${name}.conf`, bfrt: `${name}.tofino/bf-rt.json` }),
    argv: (compiler, flags, out, main) => [compiler, '--std', 'p4-16', '--target', 'tofino', '--arch', 'tna', ...flags, '--bf-rt-schema', `../out/${out.bfrt}`, '-o', `../out/${out.tofino}`, main],
  },
  controlPlane: {
    ext: 'py',
    // The TNA programs report no INT, so an experiment's telemetry.int adds nothing here.
    render: (state) => state.switches.map((sw) => {
      const text = renderBfrt(state, sw.name)
      return { text, deployText: text }
    }),
    queues: () => null,
  },
  mapping: {
    problems(m, need) {
      const problems: Array<{ path: ReadonlyArray<PropertyKey>; message: string }> = []
      m.switches.forEach((s, i) => {
        need(['switches', i, 'host'], s.host, 'sde')
        const fp = new Set<string>()
        const ports = new Set<number>()
        s.ports.forEach((p, j) => {
          if (fp.has(p.frontPanel)) problems.push({ path: ['switches', i, 'ports', j], message: `${s.switch} front-panel port ${p.frontPanel} is used twice` })
          if (ports.has(p.port)) problems.push({ path: ['switches', i, 'ports', j], message: `${s.switch} port ${p.port} is mapped twice` })
          fp.add(p.frontPanel)
          ports.add(p.port)
        })
      })
      m.servers.forEach((s, i) => need(['servers', i, 'host'], s.host, 'traffic'))
      return problems
    },
    preview(state, m) {
      const lines: string[] = []
      const problems: string[] = []
      const names = new Set(state.switches.map((s) => s.name))
      m.switches.forEach((s, i) => {
        const cp = state.switches.find((x) => x.name === s.switch)
        if (!names.has(s.switch)) {
          problems.push(`mapping.switches[${i}]: the fabric has no switch '${s.switch}'`)
          return
        }
        const fabricPorts = new Set(cp!.ports.map((p) => p.port))
        for (const p of s.ports) if (!fabricPorts.has(p.port)) problems.push(`${s.switch}: the fabric has no port ${p.port} on it (its ports: ${[...fabricPorts].join(', ')})`)
        const missing = [...fabricPorts].filter((p) => !s.ports.some((x) => x.port === p))
        if (missing.length) problems.push(`${s.switch}: port${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'have' : 'has'} no front-panel port`)
        lines.push(`${s.host}: ${s.switch}, ${s.ports.map((p) => `port ${p.port} on ${p.frontPanel} ${p.speed} fec ${p.fec}`).join('; ')}`)
      })
      for (const s of names) if (!m.switches.some((x) => x.switch === s)) problems.push(`switch ${s} is on no SDE host of the mapping`)
      return { lines, problems }
    },
  },
}
