// The state of every task of a job array, read from what the cluster offers: squeue for the
// tasks it still holds, then sacct (when the cluster keeps accounting), then `scontrol show
// job` (finished jobs stay there for MinJobAge). Slurm's own names are kept: PENDING,
// RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED …
import type { ClusterShell } from './shell'

export interface TaskState {
  state: string
  /** Slurm's reason (JobArrayTaskLimit, Resources, NonZeroExitCode …) and exit code, when it says. */
  reason: string | null
  exitCode: string | null
}

/** States after which a task never runs again. */
export const ENDED = new Set(['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED', 'OUT_OF_MEMORY', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'REVOKED'])

/** Array task indices of an id like `12_3`, `12_[0-3%2]` or `12_[1,4-5]` of job `jobId`; [] for another job. */
export function arrayIndices(id: string, jobId: string): number[] {
  if (!id.startsWith(`${jobId}_`)) return []
  const rest = id.slice(jobId.length + 1)
  if (/^\d+$/.test(rest)) return [Number(rest)]
  const m = /^\[([\d,\-%]+)\]$/.exec(rest)
  if (!m) return []
  const out: number[] = []
  for (const part of m[1].split('%')[0].split(',')) {
    const [a, b] = part.split('-').map(Number)
    for (let i = a; i <= (b ?? a); i++) out.push(i)
  }
  return out
}

const clean = (s: string | undefined): string | null => (s === undefined || s === '' || s === 'None' || s === '(null)' ? null : s)

/** `squeue -h -r -o %i|%T|%r` lines. */
export function parseSqueue(text: string, jobId: string): Map<number, TaskState> {
  const out = new Map<number, TaskState>()
  for (const line of text.split('\n')) {
    const [id, state, reason] = line.trim().split('|')
    if (!id || !state) continue
    for (const i of arrayIndices(id, jobId)) out.set(i, { state, reason: clean(reason), exitCode: null })
  }
  return out
}

/** `sacct -n -P -X -o JobID,State,Reason,ExitCode` lines ("CANCELLED by 0" is CANCELLED). */
export function parseSacct(text: string, jobId: string): Map<number, TaskState> {
  const out = new Map<number, TaskState>()
  for (const line of text.split('\n')) {
    const [id, stateText, reason, exitCode] = line.trim().split('|')
    if (!id || !stateText) continue
    const state = stateText.split(' ')[0]
    const by = stateText.includes(' by ') ? stateText.slice(stateText.indexOf(' by ') + 1) : null
    for (const i of arrayIndices(id, jobId)) out.set(i, { state, reason: clean(reason) ?? by, exitCode: clean(exitCode) })
  }
  return out
}

/** `scontrol show job -o JOBID`: one line per task, `Key=Value` pairs. */
export function parseScontrol(text: string, jobId: string): Map<number, TaskState> {
  const out = new Map<number, TaskState>()
  for (const line of text.split('\n')) {
    const field = (k: string) => new RegExp(`(?:^|\\s)${k}=(\\S*)`).exec(line)?.[1]
    if (field('ArrayJobId') !== jobId) continue
    const task = field('ArrayTaskId')
    const state = field('JobState')
    if (task === undefined || !state) continue
    for (const i of arrayIndices(`${jobId}_${/^\d+$/.test(task) ? task : `[${task}]`}`, jobId)) out.set(i, { state, reason: clean(field('Reason')), exitCode: clean(field('ExitCode')) })
  }
  return out
}

/** squeue says so when the job has left its memory; not an error. */
const gone = (stderr: string) => /Invalid job id/i.test(stderr)

/** Every task Slurm still knows of, by array index. */
export async function readTaskStates(shell: ClusterShell, jobId: string, tasks: number): Promise<{ states: Map<number, TaskState>; sources: string[] }> {
  const sources: string[] = []
  const sq = await shell.run(['squeue', '-h', '-r', '-j', jobId, '-o', '%i|%T|%r'])
  if (sq.code !== 0 && !gone(sq.stderr)) throw new Error(`${shell.label}: squeue failed: ${sq.stderr.trim()}`)
  const states = sq.code === 0 ? parseSqueue(sq.stdout.toString('utf8'), jobId) : new Map<number, TaskState>()
  sources.push('squeue')
  if (states.size >= tasks) return { states, sources }
  const sa = await shell.run(['sacct', '-n', '-P', '-X', '-j', jobId, '-o', 'JobID,State,Reason,ExitCode'])
  if (sa.code === 0) {
    sources.push('sacct')
    for (const [i, s] of parseSacct(sa.stdout.toString('utf8'), jobId)) if (!states.has(i)) states.set(i, s)
  }
  if (states.size < tasks) {
    const sc = await shell.run(['scontrol', 'show', 'job', '-o', jobId])
    if (sc.code === 0) {
      sources.push('scontrol')
      for (const [i, s] of parseScontrol(sc.stdout.toString('utf8'), jobId)) if (!states.has(i)) states.set(i, s)
    } else if (!gone(sc.stderr)) throw new Error(`${shell.label}: scontrol show job failed: ${sc.stderr.trim()}`)
  }
  return { states, sources }
}
