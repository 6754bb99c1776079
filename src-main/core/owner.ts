// Who owns a run: the process that started it, named so that a later process can tell
// whether that owner still lives. A pid alone is not enough: pids are reused, so a dead
// owner's pid may belong to an unrelated process by now. Boot id and the process's start
// time (in clock ticks since boot) pin the one process; after a reboot no owner is alive.
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id'

function readBootId(): string | null {
  try {
    return readFileSync(BOOT_ID_FILE, 'utf8').trim() || null
  } catch {
    return null
  }
}

/**
 * Field 22 of /proc/PID/stat (starttime), or null when there is no such process or no /proc.
 * Field 2 (comm) is in parentheses and may hold spaces and ')', so fields are counted from
 * the last ')'.
 */
export function processStartTime(pid: number): string | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  const close = text.lastIndexOf(')')
  if (close < 0) return null
  // After comm: field 3 (state) is index 0, so field 22 is index 19.
  const start = text.slice(close + 2).split(' ')[19]
  return start && /^\d+$/.test(start) ? start : null
}

let self: string | undefined

/**
 * This process as a run owner: `host:pid:bootid:starttime` where /proc tells them, else
 * `host:pid` (checked by signal 0 only, as before).
 */
export function processOwner(): string {
  if (self === undefined) {
    const boot = readBootId()
    const start = processStartTime(process.pid)
    self = boot && start ? `${hostname()}:${process.pid}:${boot}:${start}` : `${hostname()}:${process.pid}`
  }
  return self
}

/** Whether pid names a process (signal 0: nothing is sent). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether the owner of a run may still be running it. Owners on another machine (a shared
 * database file) cannot be checked and count as alive; so does anything unparseable, and a
 * Slurm sweep's runs, whose owner is the cluster's job.
 */
export function ownerIsAlive(owner: string): boolean {
  // A run on a Slurm cluster ('slurm <login node>', core/slurm) is followed through its job, not a process.
  if (owner.startsWith('slurm ')) return true
  const [host, pidText, boot, start] = owner.split(':')
  const pid = Number(pidText)
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return true
  if (owner === processOwner()) return true
  if (boot === undefined || start === undefined) {
    // An owner written before boot id and start time were recorded.
    return pid === process.pid || pidExists(pid)
  }
  const currentBoot = readBootId()
  if (currentBoot === null) return pidExists(pid)
  // Another boot: every process of that one is gone.
  if (boot !== currentBoot) return false
  const now = processStartTime(pid)
  // No such process, or a different process under the same pid.
  return now !== null && now === start
}
