// Getting a dropped connection back (pool.ts calls it when an established connection closes
// without being asked to): attempts with exponential backoff and jitter, bounded by a count or
// a time window, each reported as an event. A host-key or login failure ends it at once:
// retrying cannot fix those, the user must act.
import { SshError } from './errors'

export interface BackoffOptions {
  /** First retry delay, ms. Default 500. */
  initialMs?: number
  /** Cap, ms. Default 30 000. */
  maxMs?: number
  /** Growth per attempt. Default 2. */
  factor?: number
  /** Give up after this many failed attempts in a row (waiting calls then fail). Default 10, or no limit with `windowMs`. */
  maxAttempts?: number
  /**
   * The retry window: give up once this many ms have passed since the connection dropped
   * (the last attempt starts at the window's end at the latest). Unset: only `maxAttempts` bounds it.
   */
  windowMs?: number
}

/**
 * Delay before reconnect attempt `attempt` (1-based): exponential, capped, with "equal
 * jitter" (half fixed, half random) so many hosts dropped at once do not retry in step.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = opts.initialMs ?? 500
  const max = opts.maxMs ?? 30_000
  const factor = opts.factor ?? 2
  const base = Math.min(max, initial * Math.pow(factor, Math.max(0, attempt - 1)))
  const r = Math.min(1, Math.max(0, random()))
  return Math.round(base / 2 + (base / 2) * r)
}

export type ReconnectEvent =
  | { type: 'reconnect-scheduled'; host: string; attempt: number; delayMs: number }
  | { type: 'reconnect-failed'; host: string; attempt: number; error: string }
  | { type: 'reconnected'; host: string; attempt: number; downMs: number }
  | { type: 'gave-up'; host: string; error: string }

/** The wait between two attempts, cut short when the host is closed. */
export class Pause {
  private timer: NodeJS.Timeout | undefined
  private wake: (() => void) | undefined

  async sleep(ms: number): Promise<void> {
    await new Promise<void>((r) => {
      this.wake = r
      this.timer = setTimeout(r, ms)
    })
    this.wake = undefined
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer)
    this.wake?.()
  }
}

function isFatal(e: unknown): boolean {
  // Retrying cannot fix these: the user must act.
  return e instanceof SshError && (e.code === 'auth' || e.code.startsWith('host-key'))
}

function fmtSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`
}

export interface Reconnect<C> {
  label: string
  backoff?: BackoffOptions
  random?: () => number
  emit: (e: ReconnectEvent) => void
  log?: (line: string) => void
  pause: Pause
  closed: () => boolean
  /** One attempt: a new connection, set up as the host's. */
  open: () => Promise<C>
  /** The calls waiting for a connection fail with this when it is over (a fatal error, or given up). */
  failWaiting: (e: Error) => void
  /** The message of giving up, kept by the host until a connection is up again. */
  gaveUp: (msg: string) => void
}

/** Attempts until one connects; the first is immediate (often only the session died, not the server). */
export async function reconnect<C>(o: Reconnect<C>): Promise<C> {
  const b = o.backoff ?? {}
  const windowMs = b.windowMs
  const max = b.maxAttempts ?? (windowMs !== undefined ? Infinity : 10)
  const since = Date.now()
  const deadline = windowMs !== undefined ? since + windowMs : Infinity
  let last: unknown
  let attempt = 0
  for (;;) {
    attempt++
    if (attempt > 1) {
      const delayMs = Math.max(0, Math.min(backoffDelay(attempt - 1, b, o.random), deadline - Date.now()))
      o.emit({ type: 'reconnect-scheduled', host: o.label, attempt, delayMs })
      await o.pause.sleep(delayMs)
    }
    if (o.closed()) throw new SshError('closed', `the connection to ${o.label} is closed`)
    try {
      const conn = await o.open()
      const downMs = Date.now() - since
      o.emit({ type: 'reconnected', host: o.label, attempt, downMs })
      o.log?.(`ssh ${o.label}: reconnected at attempt ${attempt}, ${(downMs / 1000).toFixed(1)} s after the connection dropped`)
      return conn
    } catch (e) {
      last = e
      const msg = (e as Error).message
      o.emit({ type: 'reconnect-failed', host: o.label, attempt, error: msg })
      o.log?.(`ssh ${o.label}: reconnect attempt ${attempt} failed: ${msg}`)
      if (isFatal(e) || o.closed()) {
        o.failWaiting(e as Error)
        throw e
      }
    }
    if (attempt >= max || Date.now() >= deadline) break
  }
  const within = windowMs !== undefined ? `within the reconnect window of ${fmtSeconds(windowMs)} (${attempt} attempts)` : `after ${attempt} attempts`
  const msg = `lost the connection to ${o.label} and could not reconnect ${within}: ${(last as Error)?.message}`
  o.emit({ type: 'gave-up', host: o.label, error: msg })
  o.gaveUp(msg)
  const err = new SshError('connect', msg, { cause: last })
  o.failWaiting(err)
  throw err
}
