// Check: log in to each host of a testbed over the SSH layer and report the tools and
// versions found (issue 5, item 2). Every remote command line is built with cmd().
// An unknown host key stops that host with the key's fingerprint, for the user to
// confirm (then `trust`, and check again); a changed key is refused with the layer's error.
// A host is ready only when every required tool was seen and runs: a tool that is on PATH
// but cannot be executed counts as missing, and a probe that could not run at all (no
// channel, no answer) makes the host an error, never a pass.
import {
  Bmv2Settings,
  TofinoSettings,
  type HostCheck,
  type HostRole,
  type TestbedKind,
  type ToolCheck,
} from '../../contract/schemas'
import {
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  cmd,
  type SshHost,
  type SshPool,
  type SshTarget,
} from '../ssh'
import { SDE_DIRS, bmv2Tools, tofinoTools, type ToolSpec } from './tools'
import { firstLine, sdeVersionFromPath } from './versions'

/**
 * Finds `$1` on PATH (widened with the sbin folders a non-root login lacks, and the SDE's
 * folders when $SDE/$SDE_INSTALL are set), prints where, then runs it with the remaining
 * arguments, stderr folded into stdout. Exits 127 when it is not found. A constant: all
 * data goes in as positional parameters.
 */
const PROBE = [
  'PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin${SDE:+:$SDE}${SDE_INSTALL:+:$SDE_INSTALL/bin}"',
  'export PATH',
  'p=$(command -v "$1" 2>/dev/null) || exit 127',
  'case $p in /*) ;; *) exit 127 ;; esac',
  'printf "%s\\n" "$p"',
  'shift',
  '[ "$#" -eq 0 ] && exit 0',
  'exec "$p" "$@" 2>&1',
].join('\n')

/** The login environment's $SDE and $SDE_INSTALL, one per line (empty when unset). */
const SDE_ENV = 'printf "%s\\n%s\\n" "${SDE-}" "${SDE_INSTALL-}"'

/** Prints `$1` with a leading `~/` made absolute, when that is a directory; else exits 1. */
const DIR = 'd=$1; case $d in "~/"*) d="$HOME/${d#??}" ;; esac; [ -d "$d" ] || exit 1; printf "%s\\n" "$d"'

export interface CheckHostInput {
  name: string
  role: HostRole
  target: SshTarget
}

export interface CheckOptions {
  signal?: AbortSignal
  /** ms for each tool's command. Default 20 000. */
  toolTimeoutMs?: number
  /** Tool commands run at once on one connection (sshd allows 10 sessions). Default 4. */
  concurrency?: number
}

function timeoutSignal(ms: number, outer?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(ms)
  return outer ? AbortSignal.any([outer, t]) : t
}

async function probeTool(h: SshHost, spec: ToolSpec, env: Record<string, string>, opts: CheckOptions): Promise<ToolCheck> {
  const argv = ['sh', '-c', PROBE, 'p4lab-probe', spec.name, ...(spec.kind === 'version' ? (spec.args ?? []) : [])]
  const base = { name: spec.name, required: spec.required, checked: true, why: spec.why, install: spec.install }
  let r
  try {
    r = await h.exec(cmd(argv, { env }), { signal: timeoutSignal(opts.toolTimeoutMs ?? 20_000, opts.signal), maxCapture: 64 << 10 })
  } catch (e) {
    if (opts.signal?.aborted) throw e
    const why = (e as { code?: string }).code === 'aborted' ? `no answer within ${(opts.toolTimeoutMs ?? 20_000) / 1000} s` : (e as Error).message
    return { ...base, checked: false, found: false, version: null, path: null, detail: `could not look: ${why}` }
  }
  const out = r.stdout.toString('utf8')
  if (r.code === 127 && !out.trim().startsWith('/')) {
    return { ...base, found: false, version: null, path: null, detail: 'not found on PATH' }
  }
  const nl = out.indexOf('\n')
  const path = (nl >= 0 ? out.slice(0, nl) : out).trim() || null
  const rest = nl >= 0 ? out.slice(nl + 1) : ''
  if (spec.kind === 'present') return { ...base, found: true, version: null, path, detail: null }
  // 126/127 after the path was printed: the shell found it but could not execute it
  // (not executable, a missing interpreter or shared library).
  if (r.code === 126 || r.code === 127) {
    return { ...base, found: false, version: null, path, detail: `on PATH but does not run: ${firstLine(rest) ?? '(no output)'} (exit ${r.code})` }
  }
  const version = spec.parse ? spec.parse(rest) : null
  const exit = r.code === 0 ? '' : r.code === null ? ` (killed by ${r.signal ?? 'a signal'})` : ` (exit ${r.code})`
  return { ...base, found: true, version, path, detail: (firstLine(rest) ?? '(no output)') + exit }
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** $SDE and $SDE_INSTALL from the settings, else the login environment; each checked to be a directory. */
async function sdeEnv(h: SshHost, settings: TofinoSettings, opts: CheckOptions): Promise<{ env: Record<string, string>; tools: ToolCheck[] }> {
  const signal = () => timeoutSignal(opts.toolTimeoutMs ?? 20_000, opts.signal)
  const r = await h.exec(cmd(['sh', '-c', SDE_ENV, 'p4lab-env']), { signal: signal() })
  const [loginSde = '', loginInstall = ''] = r.stdout.toString('utf8').split('\n')
  const env: Record<string, string> = {}
  const tools: ToolCheck[] = []
  const dir = async (name: 'SDE' | 'SDE_INSTALL', fromSettings: string | undefined, fromLogin: string, fallback?: string) => {
    const value = fromSettings ?? (fromLogin || fallback)
    const source = fromSettings ? 'from the testbed settings' : fromLogin ? 'from the login environment' : fallback ? 'default' : ''
    const base = { name: `$${name}`, required: true, checked: true, ...SDE_DIRS[name] }
    if (!value) {
      tools.push({ ...base, found: false, version: null, path: null, detail: 'not set in the testbed settings nor in the login environment' })
      return
    }
    const d = await h.exec(cmd(['sh', '-c', DIR, 'p4lab-dir', value]), { signal: signal() })
    const abs = d.stdout.toString('utf8').trim()
    if (d.code !== 0 || !abs) {
      tools.push({ ...base, found: false, version: null, path: value, detail: `${value} (${source}) is not a directory on the host` })
      return
    }
    env[name] = abs
    tools.push({ ...base, found: true, version: name === 'SDE' ? sdeVersionFromPath(abs) : null, path: abs, detail: source })
  }
  await dir('SDE', settings.sde, loginSde)
  await dir('SDE_INSTALL', settings.sdeInstall, loginInstall, env.SDE ? `${env.SDE}/install` : undefined)
  return { env, tools }
}

function keyOf(e: { keyType: string; fingerprint: string }) {
  return { keyType: e.keyType, fingerprint: e.fingerprint }
}

/** Connects to one host and looks for its tools. Never throws for the host's own problems. */
export async function checkHost(
  pool: SshPool,
  kind: TestbedKind,
  settings: Record<string, unknown>,
  input: CheckHostInput,
  opts: CheckOptions = {},
): Promise<HostCheck> {
  const { target } = input
  const result: HostCheck = {
    host: input.name,
    address: target.host,
    port: target.port ?? 22,
    user: target.user,
    role: input.role,
    status: 'ok',
    message: null,
    hostKey: null,
    expected: [],
    tools: [],
    missing: [],
  }
  const h = pool.host(target)
  try {
    await h.connect()
  } catch (e) {
    result.message = (e as Error).message
    if (e instanceof HostKeyUnknownError) {
      result.status = 'unknown-key'
      result.hostKey = keyOf(e)
    } else if (e instanceof HostKeyChangedError) {
      result.status = 'changed-key'
      result.hostKey = keyOf(e)
      result.expected = e.expected.map((x) => x.fingerprint)
    } else {
      result.status = 'error'
      if (e instanceof HostKeyRevokedError) result.hostKey = keyOf(e)
    }
    return result
  }
  result.hostKey = h.hostKey ? { keyType: '', fingerprint: h.hostKey } : null
  try {
    let env: Record<string, string> = {}
    let specs: ToolSpec[]
    if (kind === 'tofino') {
      const s = TofinoSettings.parse(settings)
      if (input.role === 'sde') {
        const sde = await sdeEnv(h, s, opts)
        env = sde.env
        result.tools.push(...sde.tools)
      }
      specs = tofinoTools(input.role, s)
    } else {
      specs = bmv2Tools(input.role, Bmv2Settings.parse(settings))
    }
    result.tools.push(...(await mapLimited(specs, opts.concurrency ?? 4, (spec) => probeTool(h, spec, env, opts))))
  } catch (e) {
    if (opts.signal?.aborted) throw e
    result.status = 'error'
    result.message = (e as Error).message
  }
  const unchecked = result.tools.filter((t) => !t.checked)
  if (unchecked.length && result.status === 'ok') {
    result.status = 'error'
    const why = [...new Set(unchecked.map((t) => (t.detail ?? '').replace(/^could not look: /, '')))]
    result.message = `could not look for ${unchecked.map((t) => t.name).join(', ')} (${why.join('; ')}), so the host is not known to be ready`
  }
  result.missing = result.tools.filter((t) => t.required && t.checked && !t.found).map((t) => t.name)
  return result
}
