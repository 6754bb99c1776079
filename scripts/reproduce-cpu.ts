// The CPU time of each simulator run, for `npm run reproduce`'s progress lines and totals. A sim
// run is one worker thread for its whole life (core/targets/sim/driver.ts), so its CPU time is
// that thread's, read from /proc/self/task/<tid>/stat. The thread is the one that appears
// between the run's `deploying` and `running` statuses (the worker is created in deploy); when
// two runs deploy at once, the older thread goes to the run that deployed first, as the core
// creates their workers in that order. The reading is refreshed every second and at the run's
// `collecting` status, just after the simulation ends. Off Linux (no /proc) CPU is unknown.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import type { Core } from '../src-main/core'

/** Linux's USER_HZ, the unit of utime and stime in /proc: 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100
const TASKS = '/proc/self/task'

interface Stat {
  cpuMs: number
  startTicks: number
}

function stat(tid: number): Stat | undefined {
  try {
    const text = readFileSync(`${TASKS}/${tid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15, starttime 22.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND, startTicks: Number(f[19]) }
  } catch {
    return undefined
  }
}

function tids(): Set<number> {
  try {
    return new Set(readdirSync(TASKS).map(Number))
  } catch {
    return new Set()
  }
}

export class RunCpu {
  readonly available = existsSync(TASKS)
  private readonly before = new Map<number, Set<number>>()
  private readonly deployOrder: number[] = []
  private readonly tid = new Map<number, number>()
  private readonly cpu = new Map<number, number>()
  private readonly timer: NodeJS.Timeout
  private readonly unsubscribe: () => void

  constructor(core: Core) {
    this.unsubscribe = core.bus.subscribe((event, payload) => {
      if (event !== 'run.status' || !this.available) return
      const { runId, status } = payload as { runId: number; status: string }
      if (status === 'deploying') {
        this.before.set(runId, tids())
        this.deployOrder.push(runId)
      } else if (status === 'running') this.assign()
      else if (status === 'collecting') this.read(runId)
    })
    this.timer = setInterval(() => {
      for (const id of this.tid.keys()) this.read(id)
    }, 1000)
    this.timer.unref()
  }

  /** The run's CPU time in ms, or null when it could not be read. */
  cpuMs(runId: number): number | null {
    this.read(runId)
    return this.cpu.get(runId) ?? null
  }

  /** Forgets a finished run. */
  forget(runId: number): void {
    this.tid.delete(runId)
    this.before.delete(runId)
    this.cpu.delete(runId)
    const i = this.deployOrder.indexOf(runId)
    if (i >= 0) this.deployOrder.splice(i, 1)
  }

  stop(): void {
    clearInterval(this.timer)
    this.unsubscribe()
  }

  /** Gives each run that has deployed and has no thread yet, in deploy order, the oldest new thread it did not see before it deployed. */
  private assign(): void {
    const taken = new Set(this.tid.values())
    const now = tids()
    for (const runId of this.deployOrder) {
      if (this.tid.has(runId)) continue
      const seen = this.before.get(runId)
      if (!seen) continue
      const fresh = [...now]
        .filter((t) => !seen.has(t) && !taken.has(t))
        .map((t) => ({ t, s: stat(t) }))
        .filter((x): x is { t: number; s: Stat } => !!x.s)
        .sort((a, b) => a.s.startTicks - b.s.startTicks || a.t - b.t)
      if (fresh.length === 0) continue
      this.tid.set(runId, fresh[0].t)
      taken.add(fresh[0].t)
    }
    for (let i = this.deployOrder.length - 1; i >= 0; i--) if (this.tid.has(this.deployOrder[i])) this.deployOrder.splice(i, 1)
  }

  private read(runId: number): void {
    const t = this.tid.get(runId)
    if (t === undefined) return
    const s = stat(t)
    if (s) this.cpu.set(runId, s.cpuMs)
  }
}
