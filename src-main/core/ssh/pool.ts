// The pool of SSH connections: one per (host, port, user), shared by every call to it. Each
// connection's calls in flight and its SFTP opening are in conn.ts; getting a dropped one back,
// with backoff, in reconnect.ts; the session slots of a connection in sessions.ts.
import { EventEmitter } from 'node:events'
import type { Client, SFTPWrapper } from 'ssh2'
import { cmd, type CmdOptions } from './cmd'
import { failInflight, makeConn, sftpOn, type Conn } from './conn'
import { connect, targetLabel, type ConnectOptions, type SshTarget } from './connect'
import { SshError } from './errors'
import { ConnectionLostError, execOn, type ExecOptions, type ExecResult } from './exec'
import { hostLabel } from './known-hosts'
import { Pause, reconnect, type BackoffOptions, type ReconnectEvent } from './reconnect'
import { ChannelRefusedError, SessionScheduler, type SessionOptions, type SessionSlot, type SessionStats } from './sessions'

export { backoffDelay, type BackoffOptions } from './reconnect'

export interface PoolOptions extends ConnectOptions, SessionOptions {
  backoff?: BackoffOptions
  /** Jitter source (tests pass a seeded one). Default Math.random. */
  random?: () => number
  /** One line per connection event (never a secret). */
  log?: (line: string) => void
}

export type PoolEvent = { type: 'connected'; host: string; hostKey: string } | { type: 'disconnected'; host: string; reason: string } | ReconnectEvent

/** Times a read-only command (ExecOptions.retryOnLoss) is sent again after losing its connection. */
const MAX_LOSS_RETRIES = 5

/**
 * One connection to one (host, port, user), shared by every call to it. It connects on
 * first use. When an established connection drops, calls in flight fail with
 * {@link ConnectionLostError} and it reconnects with backoff; calls made meanwhile wait
 * for the new connection (or fail when it gives up). A host-key or login failure is
 * never retried.
 *
 * Every channel (exec, SFTP) waits for a session slot first, so no more are open on a
 * connection than the server allows; when all are busy, extra connections carry the
 * overflow (./sessions.ts).
 */
export class SshHost {
  readonly label: string
  private readonly sessions: SessionScheduler<Conn>
  private readonly extra = new Set<Conn>()
  private conn: Conn | undefined
  private connecting: Promise<Conn> | undefined
  private closed = false
  /** The wait between reconnect attempts. */
  private readonly pause = new Pause()
  /** Why the last reconnect gave up (until a connection is up again). */
  private gaveUp: string | undefined

  constructor(
    readonly target: SshTarget,
    private readonly opts: PoolOptions,
    private readonly emit: (e: PoolEvent) => void,
  ) {
    this.label = targetLabel(target)
    this.sessions = new SessionScheduler<Conn>({ ...opts, maxSessions: target.maxSessions ?? opts.maxSessions }, this.label, {
      openOverflow: () => this.openOverflow(),
      closeConn: (c) => this.closeConn(c, 'unused'),
      log: opts.log,
    })
  }

  /** Sessions open, waiting and learned (for tests and diagnostics). */
  get sessionStats(): SessionStats {
    return this.sessions.stats
  }

  /** Whether a connection is up right now. */
  get connected(): boolean {
    return !!this.conn && !this.conn.lost
  }

  /** Fingerprint of the verified host key of the current connection. */
  get hostKey(): string | undefined {
    return this.conn?.hostKey
  }

  /** Connect now (e.g. for a Check button); resolves once logged in. */
  async connect(): Promise<void> {
    await this.getConn()
  }

  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.onChannel(opts, (conn, slot) => execOn(conn, command, opts, slot))
  }

  /**
   * Opens a channel with `open` once a session is free, and again after a refusal (the
   * server's session limit) or a connection lost before anything was sent.
   */
  private async onChannel<T>(opts: { priority?: boolean; signal?: AbortSignal; retryOnLoss?: boolean }, open: (conn: Conn, slot: SessionSlot) => Promise<T>): Promise<T> {
    let refusals = 0
    let losses = 0
    for (let tries = 0; ; ) {
      await this.getConn(opts.signal)
      const lease = await this.sessions.acquire({ priority: opts.priority, signal: opts.signal, refusals })
      try {
        return await open(lease.conn, lease)
      } catch (e) {
        if (e instanceof ChannelRefusedError && e.retry) {
          refusals++
          continue
        }
        // The command never reached the server: safe to send it again on the new connection.
        // (A turn of the event loop first, so a socket that closed under it is seen as dropped.)
        if (e instanceof ConnectionLostError && e.notStarted && tries++ < 2) {
          await new Promise((r) => setImmediate(r))
          continue
        }
        // A read-only command: sent again once the host is back (getConn waits for the
        // reconnect, and fails when the retry window is over). Bounded, in case the command
        // itself is what brings the connection down.
        if (e instanceof ConnectionLostError && opts.retryOnLoss && !opts.signal?.aborted && losses++ < MAX_LOSS_RETRIES) {
          this.opts.log?.(`ssh ${this.label}: the connection dropped under a read-only command; sending it again once reconnected`)
          continue
        }
        throw e
      }
    }
  }

  /** exec of an argument list: `cmd(argv, {cwd, env})`, then {@link exec}. */
  run(argv: readonly string[], opts: ExecOptions & CmdOptions = {}): Promise<ExecResult> {
    return this.exec(cmd(argv, { cwd: opts.cwd, env: opts.env }), opts)
  }

  /** {@link run}, failing with the command's stderr unless it exits 0. Returns stdout as text. */
  async check(argv: readonly string[], opts: ExecOptions & CmdOptions = {}): Promise<string> {
    const r = await this.run(argv, opts)
    if (r.code !== 0) {
      const why = r.code === null ? `was killed by ${r.signal ?? 'an unknown signal'}` : `exited with ${r.code}`
      const tail = r.stderr.toString('utf8').trim().split('\n').slice(-5).join('\n')
      throw new SshError('remote', `${this.label}: ${argv[0]} ${why}${tail ? `: ${tail}` : ''}`)
    }
    return r.stdout.toString('utf8')
  }

  /** Open an SFTP session for `fn`, closed afterwards. Fails like exec if the connection drops. */
  async withSftp<T>(fn: (sftp: SFTPWrapper) => Promise<T>, opts: { priority?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    const { sftp, conn } = await this.onChannel(opts, (c, slot) => sftpOn(c, slot))
    let untrack = () => {}
    const lost = new Promise<never>((_, reject) => {
      untrack = conn.track(reject)
    })
    lost.catch(() => undefined)
    try {
      return await Promise.race([fn(sftp), lost])
    } finally {
      sftp.end()
      untrack()
    }
  }

  /** Close the connection; calls in flight fail, later calls fail. */
  close(): void {
    this.closed = true
    this.pause.cancel()
    this.sessions.close(new SshError('closed', `the connection to ${this.label} was closed`))
    const c = this.conn
    this.conn = undefined
    for (const x of [...(c ? [c] : []), ...this.extra]) this.closeConn(x, 'closed')
  }

  /** Closes one connection on purpose: its calls in flight fail. */
  private closeConn(c: Conn, why: 'closed' | 'unused'): void {
    this.extra.delete(c)
    if (c.lost) return
    c.lost = true
    this.sessions.remove(c)
    failInflight(c, () => new SshError('closed', `the connection to ${this.label} was closed`))
    if (why === 'unused') this.opts.log?.(`ssh ${this.label}: closing the extra connection (unused)`)
    c.client.end()
  }

  /** Another connection to the host, for the overflow (not reconnected when it drops). */
  private async openOverflow(): Promise<Conn> {
    const conn = await this.connectConn(true, (c, lastError) => {
      this.extra.delete(c)
      if (c.lost) return
      c.lost = true
      this.sessions.remove(c)
      failInflight(c, () => new ConnectionLostError(this.label, false))
      this.opts.log?.(`ssh ${this.label}: the extra connection closed (${lastError || 'by the server'})`)
    })
    this.extra.add(conn)
    this.opts.log?.(`ssh ${this.label}: extra connection up (host key ${conn.hostKey})`)
    return conn
  }

  /**
   * Connects (refused once the host is closed), wraps the client as a Conn, and logs its
   * errors; `onClose` gets the connection's end with the last error seen.
   */
  private async connectConn(overflow: boolean, onClose: (conn: Conn, lastError: string) => void): Promise<Conn> {
    const { client, hostKey } = await connect(this.target, this.opts)
    if (this.closed) {
      client.end()
      throw new SshError('closed', `the connection to ${this.label} is closed`)
    }
    const conn = this.makeConn(client, hostKey, overflow)
    const which = overflow ? ' (extra connection)' : ''
    let lastError = ''
    client.on('error', (e: Error) => {
      lastError = e.message
      // A connection closed on purpose can still report its socket's end (ECONNRESET when the
      // server goes away first); that is not news, and whoever owned the log may be gone.
      if (!conn.lost) this.opts.log?.(`ssh ${this.label}${which}: ${e.message}`)
    })
    client.on('close', () => onClose(conn, lastError))
    return conn
  }

  private makeConn(client: Client, hostKey: string, overflow: boolean): Conn {
    return makeConn(client, this.label, hostKey, overflow, (command) => this.exec(command, { priority: true }))
  }

  private getConn(signal?: AbortSignal): Promise<Conn> {
    if (this.closed) return Promise.reject(new SshError('closed', `the connection to ${this.label} is closed`))
    if (this.conn && !this.conn.lost) return Promise.resolve(this.conn)
    if (!this.connecting) {
      const p = this.open()
        .catch((e: unknown) => {
          // The host already stayed away past the reconnect window: say so, not just this attempt's error.
          if (this.gaveUp && e instanceof SshError && e.code === 'connect') throw new SshError('connect', `${this.gaveUp}; a new attempt failed too: ${e.message}`, { cause: e })
          throw e
        })
        .finally(() => {
          if (this.connecting === p) this.connecting = undefined
        })
      this.connecting = p
    }
    const p = this.connecting
    if (!signal) return p
    if (signal.aborted) return Promise.reject(new SshError('aborted', `cancelled while connecting to ${this.label}`))
    return new Promise<Conn>((resolve, reject) => {
      const onAbort = () => reject(new SshError('aborted', `cancelled while connecting to ${this.label}`))
      signal.addEventListener('abort', onAbort, { once: true })
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
    })
  }

  private async open(): Promise<Conn> {
    const conn = await this.connectConn(false, (c, lastError) => this.onDrop(c, lastError || 'the connection closed'))
    this.conn = conn
    this.gaveUp = undefined
    this.sessions.add(conn, false)
    this.emit({ type: 'connected', host: this.label, hostKey: conn.hostKey })
    this.opts.log?.(`ssh ${this.label}: connected (host key ${conn.hostKey})`)
    return conn
  }

  private onDrop(conn: Conn, reason: string): void {
    if (conn.lost) return // closed on purpose
    conn.lost = true
    if (this.conn === conn) this.conn = undefined
    this.sessions.remove(conn)
    failInflight(conn, () => new ConnectionLostError(this.label, false))
    this.emit({ type: 'disconnected', host: this.label, reason })
    this.opts.log?.(`ssh ${this.label}: disconnected (${reason}); reconnecting`)
    if (this.closed || this.connecting) return
    const p = this.reconnect().finally(() => {
      if (this.connecting === p) this.connecting = undefined
    })
    p.catch(() => undefined) // waiting calls see the error; nobody waiting is fine
    this.connecting = p
  }

  private reconnect(): Promise<Conn> {
    return reconnect({
      label: this.label,
      backoff: this.opts.backoff,
      random: this.opts.random,
      emit: this.emit,
      log: this.opts.log,
      pause: this.pause,
      closed: () => this.closed,
      open: () => this.open(),
      failWaiting: (e) => this.sessions.failWaiting(e),
      gaveUp: (msg) => (this.gaveUp = msg),
    })
  }
}

/**
 * One {@link SshHost} per (host, port, user). `host()` returns the same object for the
 * same target; asked for it with a different auth, it closes the old one (its calls in
 * flight fail) and returns a new one. Events from every host go to the pool's 'event'.
 */
export class SshPool extends EventEmitter<{ event: [PoolEvent] }> {
  private readonly hosts = new Map<string, SshHost>()

  constructor(private readonly opts: PoolOptions) {
    super()
  }

  host(target: SshTarget): SshHost {
    const key = `${target.user}@${hostLabel(target.host, target.port ?? 22)}`
    let h = this.hosts.get(key)
    if (h && JSON.stringify(h.target.auth) !== JSON.stringify(target.auth)) {
      // The login changed (a new key, another secret): never reuse a connection made with the old one.
      h.close()
      h = undefined
    }
    if (!h) {
      h = new SshHost(target, this.opts, (e) => this.emit('event', e))
      this.hosts.set(key, h)
    }
    return h
  }

  /** Close every connection (teardown, app exit). */
  closeAll(): void {
    for (const h of this.hosts.values()) h.close()
    this.hosts.clear()
  }
}
