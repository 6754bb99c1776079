import { SshError } from './errors'

/**
 * How many sessions (channels) p4lab opens at once to one host, and on which connection.
 *
 * An SSH server caps the sessions open at once on one connection: OpenSSH's `MaxSessions`,
 * 10 by default. Past it, a channel open is refused ("(SSH) Channel open failure: open
 * failed") and nothing runs. A real BMv2 run hit this at teardown, which stops every
 * process of the run at once. So every channel (exec, SFTP) takes a slot here first:
 *
 * - At most `limit` slots per connection; the others wait, in order, teardown's
 *   (`priority`) before the rest.
 * - A refusal is not the command's failure: the slot is given back and the call waits
 *   again, first in line. The server frees a session a moment after the client's close
 *   reaches it, so a client that keeps exactly `MaxSessions` open is refused now and then
 *   (a third of the opens in a test against a local sshd); each retry waits a little
 *   longer (25 ms doubling to 1 s). A server refusing below our limit teaches us its
 *   limit: it becomes the most sessions this host has had open at once, or the number open
 *   at the refusal when that is more. Both are counts the server did accept, so the learned
 *   limit is never above the real one.
 * - When every connection is full, another connection to the host carries the overflow
 *   (up to `maxConnections` in all): at once for a priority call, after `overflowAfterMs`
 *   for the others. So commands still run when long-running ones hold every session, and
 *   teardown runs even then. An overflow connection closes after `overflowIdleMs` unused.
 */
export interface SessionOptions {
  /** Sessions open at once on one connection. Default 10 (OpenSSH's `MaxSessions` default). */
  maxSessions?: number
  /** Connections to one host at most, the first one included. Default 3. */
  maxConnections?: number
  /** ms a call waits for a free session before an overflow connection is opened for it. Default 2000 (priority calls: 0). */
  overflowAfterMs?: number
  /** ms an overflow connection stays open without a session. Default 5000. */
  overflowIdleMs?: number
}

export interface SessionStats {
  /** Sessions allowed per connection now (the configured limit, or lower once the server refused). */
  limit: number
  configured: number
  /** Slots taken now, on all connections (channels open or opening). */
  open: number
  /** Most channels open at once on one connection, as the server saw them open. */
  peak: number
  /** Most channels open at once on all connections together. */
  peakTotal: number
  /** Calls waiting for a slot. */
  waiting: number
  /** Connections up now (the first one and overflow ones). */
  connections: number
  /** Overflow connections opened so far. */
  overflowOpened: number
  /** Channel opens the server refused (each one retried). */
  refusals: number
}

/** The server refused to open a channel; `retry` when waiting for a free session may help. */
export class ChannelRefusedError extends SshError {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super('remote', message)
    this.name = 'ChannelRefusedError'
  }
}

/** ssh2's error for a CHANNEL_OPEN_FAILURE from the server (OpenSSH's text is "open failed"). */
export function isChannelOpenFailure(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('(SSH) Channel open failure')
}

/** What the scheduler needs of a connection. */
export interface SlotConn {
  readonly lost: boolean
}

/** One slot, given to one channel. Exactly one of `openFailed` or `closed` ends it. */
export interface SessionSlot {
  /** The channel is open: the server counts it until it closes. */
  opened(): void
  /** The channel did not open; returns the error to report (a refusal: a ChannelRefusedError). */
  openFailed(e: Error): Error
  /** The channel closed. */
  closed(): void
}

export interface Lease<C> extends SessionSlot {
  conn: C
}

interface Taken {
  /** Order of the channel opens on the connection (the server answers them in this order). */
  seq: number
  state: 'opening' | 'open' | 'done'
}

interface Slots {
  overflow: boolean
  /** Slots taken (channels open or opening). */
  taken: Set<Taken>
  seq: number
  /** Channels the server opened and that have not closed. */
  confirmed: number
  /** No new channel before this (ms epoch), after a refusal. */
  holdUntil: number
  refusedInRow: number
  idle?: NodeJS.Timeout
}

interface Waiter<C> {
  priority: boolean
  since: number
  refusals: number
  resolve: (l: Lease<C>) => void
  reject: (e: Error) => void
  detach: () => void
}

export interface AcquireOptions {
  priority?: boolean
  signal?: AbortSignal
  /** Refusals this call already had (it then goes first in its class). */
  refusals?: number
}

/** Refusals in a row with nothing else open on the connection before the call fails. */
const MAX_LONE_REFUSALS = 5

export class SessionScheduler<C extends SlotConn> {
  private readonly conns = new Map<C, Slots>()
  private readonly waiters: Waiter<C>[] = []
  private limitNow: number
  private readonly configured: number
  private readonly maxConnections: number
  private readonly overflowAfterMs: number
  private readonly overflowIdleMs: number
  private peak = 0
  private peakTotal = 0
  private refusals = 0
  private overflowOpened = 0
  private overflowing = false
  private overflowRetryAt = 0
  private timer: NodeJS.Timeout | undefined
  private timerAt = 0
  private closedError: Error | undefined

  constructor(
    opts: SessionOptions,
    private readonly label: string,
    private readonly hooks: {
      /** Open another connection to the host (it is then `add`ed as overflow). */
      openOverflow: () => Promise<C>
      /** Close an idle overflow connection. */
      closeConn: (c: C) => void
      log?: (line: string) => void
    },
  ) {
    const n = opts.maxSessions ?? 10
    if (!Number.isInteger(n) || n < 1) throw new SshError('usage', `${label}: maxSessions must be a whole number of at least 1, got ${n}`)
    const m = opts.maxConnections ?? 3
    if (!Number.isInteger(m) || m < 1) throw new SshError('usage', `${label}: maxConnections must be a whole number of at least 1, got ${m}`)
    this.configured = n
    this.limitNow = n
    this.maxConnections = m
    this.overflowAfterMs = opts.overflowAfterMs ?? 2000
    this.overflowIdleMs = opts.overflowIdleMs ?? 5000
  }

  get stats(): SessionStats {
    let open = 0
    let connections = 0
    for (const [c, s] of this.conns) {
      open += s.taken.size
      if (!c.lost) connections++
    }
    return {
      limit: this.limitNow,
      configured: this.configured,
      open,
      peak: this.peak,
      peakTotal: this.peakTotal,
      waiting: this.waiters.length,
      connections,
      overflowOpened: this.overflowOpened,
      refusals: this.refusals,
    }
  }

  /** A connection is up (the first one, a reconnect, or an overflow one). */
  add(c: C, overflow: boolean): void {
    this.closedError = undefined
    this.conns.set(c, { overflow, taken: new Set(), seq: 0, confirmed: 0, holdUntil: 0, refusedInRow: 0 })
    this.pump()
  }

  /** A connection is gone: its slots go with it (its calls fail on their own). */
  remove(c: C): void {
    const s = this.conns.get(c)
    if (s?.idle) clearTimeout(s.idle)
    this.conns.delete(c)
    this.pump()
  }

  /** Fail every waiting call (the host was closed, or gave up reconnecting). */
  failWaiting(err: Error): void {
    for (const w of this.waiters.splice(0)) {
      w.detach()
      w.reject(err)
    }
  }

  /** The host is closed: waiting and later calls fail with `err`. */
  close(err: Error): void {
    this.closedError = err
    this.failWaiting(err)
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const s of this.conns.values()) if (s.idle) clearTimeout(s.idle)
    this.conns.clear()
  }

  /** Waits for a slot on some connection. */
  acquire(o: AcquireOptions = {}): Promise<Lease<C>> {
    if (this.closedError) return Promise.reject(this.closedError)
    const signal = o.signal
    const aborted = () => new SshError('aborted', `cancelled while waiting for a free session on ${this.label}`)
    if (signal?.aborted) return Promise.reject(aborted())
    return new Promise<Lease<C>>((resolve, reject) => {
      const w: Waiter<C> = {
        priority: !!o.priority,
        since: Date.now(),
        refusals: o.refusals ?? 0,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      }
      const onAbort = () => {
        const i = this.waiters.indexOf(w)
        if (i < 0) return
        this.waiters.splice(i, 1)
        reject(aborted())
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      // Priority calls before the others; a retried call first in its class.
      let at: number
      if (w.refusals > 0) at = w.priority ? 0 : this.waiters.findIndex((x) => !x.priority)
      else at = w.priority ? this.waiters.findIndex((x) => !x.priority) : -1
      if (at < 0) this.waiters.push(w)
      else this.waiters.splice(at, 0, w)
      this.pump()
    })
  }

  private pump(): void {
    const now = Date.now()
    while (this.waiters.length) {
      const c = this.freeConn(now)
      if (!c) break
      const w = this.waiters.shift()!
      w.detach()
      w.resolve(this.lease(c, w))
    }
    this.considerOverflow(now)
    this.wakeForHolds(now)
  }

  /** A live connection with a free slot, the first connection first; `ignoreHold` for "is everything full". */
  private freeConn(now: number, ignoreHold = false): C | undefined {
    for (const [c, s] of this.conns) {
      if (c.lost || s.taken.size >= this.limitNow) continue
      if (!ignoreHold && s.holdUntil > now) continue
      return c
    }
    return undefined
  }

  /**
   * A slot on `c`. The caller sends its channel open right away, so the slots' order is the
   * order the server sees the opens in (a microtask apart at most).
   */
  private lease(c: C, w: Waiter<C>): Lease<C> {
    const s = this.conns.get(c)!
    if (s.idle) clearTimeout(s.idle)
    s.idle = undefined
    const me: Taken = { seq: s.seq++, state: 'opening' }
    s.taken.add(me)
    const live = () => this.conns.get(c) === s
    const giveBack = () => {
      s.taken.delete(me)
      if (live() && s.overflow && s.taken.size === 0) this.idleLater(c, s)
      this.pump()
    }
    return {
      conn: c,
      opened: () => {
        if (me.state !== 'opening') return
        me.state = 'open'
        if (!live()) return
        s.confirmed++
        s.refusedInRow = 0
        this.peak = Math.max(this.peak, s.confirmed)
        let total = 0
        for (const x of this.conns.values()) total += x.confirmed
        this.peakTotal = Math.max(this.peakTotal, total)
      },
      closed: () => {
        if (me.state === 'done') return
        if (me.state === 'open' && live()) s.confirmed--
        me.state = 'done'
        giveBack()
      },
      openFailed: (e: Error) => {
        if (me.state !== 'opening') return e
        me.state = 'done'
        if (!isChannelOpenFailure(e) || !live()) {
          giveBack()
          return e
        }
        // The server answers opens in order: those sent before this one and not refused were
        // open when it refused this one (an exec counts as `opened` only once its command is
        // accepted, later).
        let others = 0
        for (const t of s.taken) if (t !== me && t.seq < me.seq && t.state !== 'done') others++
        this.refusals++
        s.refusedInRow++
        w.refusals++
        // Every count here is one the server accepted: the learned limit is never above its own.
        const learned = Math.max(1, this.peak, others)
        if (learned < this.limitNow) {
          this.hooks.log?.(`ssh ${this.label}: the server refused a session with ${others} open; using at most ${learned} at once per connection (its MaxSessions)`)
          this.limitNow = learned
        }
        s.holdUntil = Date.now() + Math.min(1000, 25 * 2 ** Math.min(6, s.refusedInRow - 1))
        const lone = others === 0 && s.taken.size === 1
        giveBack()
        if (lone && w.refusals >= MAX_LONE_REFUSALS) {
          return new ChannelRefusedError(
            `${this.label}: the server refused to open a session ${w.refusals} times with no other session of p4lab open on the connection (${e.message}); is MaxSessions 0 in its sshd_config?`,
            false,
          )
        }
        return new ChannelRefusedError(`${this.label}: ${e.message} (${others} sessions open); waiting for one to close`, true)
      },
    }
  }

  private idleLater(c: C, s: Slots): void {
    if (s.idle) clearTimeout(s.idle)
    s.idle = setTimeout(() => {
      s.idle = undefined
      if (this.conns.get(c) !== s || s.taken.size > 0) return
      this.conns.delete(c)
      this.hooks.closeConn(c)
    }, this.overflowIdleMs)
    s.idle.unref?.()
  }

  private considerOverflow(now: number): void {
    const head = this.waiters[0]
    if (!head || this.overflowing || this.closedError) return
    let live = 0
    for (const c of this.conns.keys()) if (!c.lost) live++
    // No connection at all: the host is connecting or reconnecting, and the waiters go to that one.
    if (live === 0 || live >= this.maxConnections || this.freeConn(now, true)) return
    const wait = Math.max(head.priority ? 0 : head.since + this.overflowAfterMs - now, this.overflowRetryAt - now)
    if (wait > 0) {
      this.wakeAt(now + wait)
      return
    }
    this.overflowing = true
    this.hooks.log?.(`ssh ${this.label}: all ${live * this.limitNow} sessions busy (${this.waiters.length} waiting${head.priority ? ', teardown among them' : ''}): opening another connection`)
    this.hooks.openOverflow().then(
      (c) => {
        this.overflowing = false
        if (this.closedError) return this.hooks.closeConn(c)
        this.overflowOpened++
        this.add(c, true)
      },
      (e: Error) => {
        this.overflowing = false
        if (this.closedError) return // closed meanwhile: whoever owned the log may be gone
        this.overflowRetryAt = Date.now() + 5000
        this.hooks.log?.(`ssh ${this.label}: cannot open another connection (${e.message}); the calls wait for a free session`)
        this.pump()
      },
    )
  }

  /** Wake up when a held connection may open channels again. */
  private wakeForHolds(now: number): void {
    if (!this.waiters.length) return
    let next = Infinity
    for (const [c, s] of this.conns) if (!c.lost && s.taken.size < this.limitNow && s.holdUntil > now) next = Math.min(next, s.holdUntil)
    if (next < Infinity) this.wakeAt(next)
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return
    if (this.timer) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.pump()
      },
      Math.max(0, at - Date.now()),
    )
  }
}
