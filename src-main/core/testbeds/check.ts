// Check: log in to each host of a testbed over the SSH layer and report the tools and
// versions found (issue 5, item 2). Every remote command line is built with cmd().
// An unknown host key stops that host with the key's fingerprint, for the user to
// confirm (then `trust`, and check again); a changed key is refused with the layer's error.
// A host is ready only when every required tool was seen and runs: a tool that is on PATH
// but cannot be executed counts as missing, and a probe that could not run at all (no
// channel, no answer) makes the host an error, never a pass.
import type { HostCheck, HostRole, RemoteKind, ToolCheck } from '../../contract/schemas'
import {
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  cmd,
  type SshHost,
  type SshPool,
  type SshTarget,
} from '../ssh'
import { KINDS } from '../targets/kinds'
import type { ToolSpec } from './tools'
import { firstLine } from './versions'

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

function keyOf(e: { keyType: string; fingerprint: string }) {
  return { keyType: e.keyType, fingerprint: e.fingerprint }
}

/** Connects to one host and looks for its tools. Never throws for the host's own problems. */
export async function checkHost(
  pool: SshPool,
  kind: RemoteKind,
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
    const probe = async (argv: string[]) => {
      const r = await h.exec(cmd(argv), { signal: timeoutSignal(opts.toolTimeoutMs ?? 20_000, opts.signal) })
      return { code: r.code, stdout: r.stdout.toString('utf8') }
    }
    const plan = await KINDS[kind].checkPlan(input.role, settings, probe)
    result.tools.push(...plan.checked)
    result.tools.push(...(await mapLimited(plan.tools, opts.concurrency ?? 4, (spec) => probeTool(h, spec, plan.env, opts))))
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
