// What a run left on a host when its teardown could not finish there (the host unreachable
// past the reconnect window, a process that survived KILL), and the later cleanup of it.
//
// A record is one small JSON file per (testbed, run, host) under <dataDir>/remote-leftovers/,
// written by the failed teardown on this machine: the host may be unreachable exactly then,
// so nothing can be written there. A file per record (created and deleted whole) needs no
// locking between the CLI, serve and the app. Only records are ever cleaned: a host shared
// with other p4labs holds their runs' folders too, and those are not ours to stop.
//
// The cleanup finds the run's processes through their pid files in the run directory on the
// host (RemoteProcesses: every detached process writes `<runDir>/<name>.pid`), stops each
// process group, deletes what carries the run's interface prefix (namespaces, veths, and
// what still runs inside them), verifies, and only then removes the run directory and the
// record. Anything still there keeps the record for the next attempt.
// It runs at the start of every run on the testbed (the driver's check) and with
// `p4lab testbed clean NAME`.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cmd, RemoteProcesses, shScript, type SshHost } from '../../ssh'
import type { RunTestbedHost } from '../driver'
import { checkPrefix, describeLeftovers, parseLeftovers, TEARDOWN_SCRIPT, VERIFY_SCRIPT, type Leftovers } from './netns'

export interface LeftoverRecord {
  testbed: string
  runId: number
  /** RemoteRun.key: the run directory's name and the RemoteProcesses id. */
  runKey: string
  /** Parent of the run directories on the host (relative: the login directory). */
  base: string
  /** The run's interface and namespace prefix on this host, when it made a fabric there. */
  prefix: string | null
  host: { id: number; name: string; address: string; port: number; user: string }
  /** Why the teardown did not finish. */
  reason: string
  at: string
}

export interface CleanupResult {
  testbed: string
  host: string
  runId: number
  runKey: string
  /** Pid files found in the run directory. */
  pidFiles: number
  /** Live processes of the run's groups before the cleanup (pid files' groups and sessions, and inside its namespaces). */
  found: number
  /** Live processes after it. */
  left: number
  clean: boolean
  /** What is left, or why the host could not be cleaned. */
  problem?: string
}

const KEY_RE = /^run-\d+-[0-9a-z]{2}$/

export function leftoversDir(dataDir: string): string {
  return join(dataDir, 'remote-leftovers')
}

function fileOf(dataDir: string, r: Pick<LeftoverRecord, 'testbed' | 'runKey' | 'host'>): string {
  return join(leftoversDir(dataDir), `${r.testbed}--${r.runKey}--${r.host.id}.json`)
}

/** Writes (or replaces) the record, whole: a temporary file renamed over it. */
export function recordLeftover(dataDir: string, r: LeftoverRecord): string {
  if (!KEY_RE.test(r.runKey)) throw new Error(`not a run key: ${JSON.stringify(r.runKey)}`)
  mkdirSync(leftoversDir(dataDir), { recursive: true, mode: 0o700 })
  const file = fileOf(dataDir, r)
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`
  writeFileSync(tmp, JSON.stringify(r, null, 2) + '\n', { mode: 0o600 })
  renameSync(tmp, file)
  return file
}

/** The records of `testbed` (all testbeds when omitted), oldest first. An unreadable file is reported through `bad`. */
export function listLeftovers(dataDir: string, testbed?: string, bad?: (file: string, why: string) => void): LeftoverRecord[] {
  let names: string[]
  try {
    names = readdirSync(leftoversDir(dataDir))
  } catch {
    return []
  }
  const out: LeftoverRecord[] = []
  for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
    const file = join(leftoversDir(dataDir), n)
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as LeftoverRecord
      if (!KEY_RE.test(r.runKey) || typeof r.base !== 'string' || !r.host || typeof r.host.id !== 'number') throw new Error('not a leftover record')
      if (r.prefix !== null) checkPrefix(r.prefix)
      if (testbed === undefined || r.testbed === testbed) out.push(r)
    } catch (e) {
      bad?.(file, (e as Error).message)
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at))
}

export function forgetLeftover(dataDir: string, r: LeftoverRecord): void {
  rmSync(fileOf(dataDir, r), { force: true })
}

async function liveCount(procs: RemoteProcesses): Promise<{ pidFiles: number; live: number; byName: Leftovers['processes'] }> {
  const names = await procs.list()
  const byName: Leftovers['processes'] = []
  let live = 0
  for (const n of names) {
    const st = await procs.status(n)
    live += st.members.length
    if (st.members.length) byName.push({ name: n, pids: st.members })
  }
  return { pidFiles: names.length, live, byName }
}

async function fabricLeft(host: SshHost, prefix: string | null): Promise<Omit<Leftovers, 'processes'>> {
  if (!prefix) return { namespaces: [], links: [], pids: [], files: [] }
  const r = await host.exec(shScript(VERIFY_SCRIPT, 'p4lab-verify', [prefix]), { priority: true, retryOnLoss: true })
  return parseLeftovers(r.stdout.toString('utf8'))
}

/**
 * Cleans one record's host: stop by pid files, delete by prefix, verify; removes the run
 * directory and the record when nothing is left. Never throws: a host it cannot reach gives
 * a result with `problem` (and the record stays).
 */
export async function cleanLeftover(dataDir: string, r: LeftoverRecord, host: SshHost, log: (line: string) => void): Promise<CleanupResult> {
  const res: CleanupResult = { testbed: r.testbed, host: r.host.name, runId: r.runId, runKey: r.runKey, pidFiles: 0, found: 0, left: 0, clean: false }
  try {
    const procs = new RemoteProcesses(host, r.runKey, { baseDir: r.base, priority: true, graceMs: 3000 })
    const before = await liveCount(procs)
    const fabric = await fabricLeft(host, r.prefix)
    res.pidFiles = before.pidFiles
    res.found = before.live + fabric.pids.filter((p) => !before.byName.some((x) => x.pids.includes(p))).length
    log(`cleanup of run ${r.runId} (${r.runKey}) on ${r.host.name}: ${before.pidFiles} pid files, ${res.found} live processes${r.prefix ? `, ${fabric.namespaces.length} namespaces and ${fabric.links.length} interfaces named ${r.prefix}` : ''}`)
    const problems: string[] = []
    await procs.stopAll().catch((e: Error) => problems.push(`stopping: ${e.message}`))
    if (r.prefix) await host.exec(shScript(TEARDOWN_SCRIPT, 'p4lab-teardown', [r.prefix]), { priority: true })
    const after = await liveCount(procs)
    const left: Leftovers = { ...(await fabricLeft(host, r.prefix)), processes: after.byName }
    res.left = after.live + left.pids.filter((p) => !after.byName.some((x) => x.pids.includes(p))).length
    const what = describeLeftovers(left)
    if (what) problems.push(`left behind: ${what}`)
    if (problems.length) {
      res.problem = problems.join('; ')
      log(`cleanup of run ${r.runId} on ${r.host.name}: ${res.problem}`)
      return res
    }
    await host.exec(cmd(['rm', '-rf', '--', `${r.base.replace(/\/+$/, '')}/${r.runKey}`]), { priority: true })
    forgetLeftover(dataDir, r)
    res.clean = true
    log(`cleanup of run ${r.runId} on ${r.host.name}: verified, nothing of ${r.runKey} is left (${res.found} processes stopped)`)
  } catch (e) {
    res.problem = `cannot clean ${r.host.name} (${r.host.user}@${r.host.address}): ${(e as Error).message}`
    log(`cleanup of run ${r.runId}: ${res.problem}`)
  }
  return res
}

/**
 * Cleans every record of `testbed` whose host is still in it (`hostFor` connects by the
 * testbed's current address for the host). A host removed from the testbed since is
 * reported, its record kept.
 */
export async function cleanTestbedLeftovers(
  dataDir: string,
  testbed: { name: string; hosts: readonly RunTestbedHost[] },
  hostFor: (h: RunTestbedHost) => Promise<SshHost>,
  log: (line: string) => void,
): Promise<CleanupResult[]> {
  const out: CleanupResult[] = []
  const records = listLeftovers(dataDir, testbed.name, (file, why) => log(`cleanup: skipping ${file}: ${why}`))
  for (const r of records) {
    const h = testbed.hosts.find((x) => x.id === r.host.id)
    if (!h) {
      const problem = `host ${r.host.name} (${r.host.user}@${r.host.address}) is no longer in testbed ${testbed.name}; clean it by hand (${r.base.startsWith('/') ? '' : '~/'}${r.base}/${r.runKey}), then delete ${fileOf(dataDir, r)}`
      log(`cleanup of run ${r.runId}: ${problem}`)
      out.push({ testbed: r.testbed, host: r.host.name, runId: r.runId, runKey: r.runKey, pidFiles: 0, found: 0, left: 0, clean: false, problem })
      continue
    }
    out.push(await cleanLeftover(dataDir, r, await hostFor(h), log))
  }
  return out
}
