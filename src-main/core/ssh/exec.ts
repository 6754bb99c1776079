import { StringDecoder } from 'node:string_decoder'
import type { Client, ClientChannel } from 'ssh2'
import { cmd, q } from './cmd'
import { SshError } from './errors'
import { ChannelRefusedError, type SessionSlot } from './sessions'

export type StreamName = 'stdout' | 'stderr'

export interface ExecOptions {
  /** Called for every line of stdout and stderr as it arrives (without its `\n`; a final partial line is flushed at the end). */
  onLine?: (line: string, stream: StreamName) => void
  /**
   * Cancel. The command then runs under a small wrapper that reports its process group,
   * and an abort sends TERM to that group, KILL after `killGraceMs`, and closes the
   * channel; the promise rejects with code 'aborted' once the channel is gone.
   */
  signal?: AbortSignal
  /** ms between TERM and KILL on cancel. Default 2000. */
  killGraceMs?: number
  /** Written to the command's stdin, which is then closed. Without it, stdin is closed at once. */
  stdin?: string | Buffer
  /** Bytes of stdout and of stderr kept in the result. Default 4 MiB each; lines are still streamed past it. */
  maxCapture?: number
  /**
   * Teardown's calls: they get a session before every other waiting call, and another
   * connection at once when every session of the host is busy (./sessions.ts).
   */
  priority?: boolean
  /**
   * The command only reads (a status, a log, a counter): when the connection drops while it
   * runs, it is sent again once the host has reconnected, instead of failing with
   * {@link ConnectionLostError}. It still fails when the host does not come back within the
   * pool's reconnect window. Lines already given to `onLine` may then come a second time.
   */
  retryOnLoss?: boolean
}

export interface ExecResult {
  /** Exit status; null when the command was killed by a signal or the server sent none. */
  code: number | null
  /** e.g. `SIGTERM` when the command died of a signal, else null. */
  signal: string | null
  stdout: Buffer
  stderr: Buffer
  /** True when stdout or stderr went past `maxCapture` and was cut. */
  truncated: boolean
}

/** Splits a byte stream into UTF-8 lines (`\n`, with a trailing `\r` dropped). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8')
  private partial = ''

  constructor(
    private readonly emit: (line: string) => void,
    private readonly maxLine = 1 << 20,
  ) {}

  push(chunk: Buffer): void {
    let text = this.partial + this.decoder.write(chunk)
    let nl: number
    while ((nl = text.indexOf('\n')) >= 0) {
      this.emit(text.slice(0, nl).replace(/\r$/, ''))
      text = text.slice(nl + 1)
    }
    // A runaway line without a newline is emitted in pieces rather than held forever.
    while (text.length > this.maxLine) {
      this.emit(text.slice(0, this.maxLine))
      text = text.slice(this.maxLine)
    }
    this.partial = text
  }

  end(): void {
    const rest = this.partial + this.decoder.end()
    this.partial = ''
    if (rest !== '') this.emit(rest.replace(/\r$/, ''))
  }
}

class Capture {
  private readonly chunks: Buffer[] = []
  private size = 0
  truncated = false
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    if (this.size >= this.max) {
      this.truncated = true
      return
    }
    const take = Math.min(b.length, this.max - this.size)
    if (take < b.length) this.truncated = true
    this.chunks.push(take === b.length ? b : b.subarray(0, take))
    this.size += take
  }
  get buffer(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

/** What a live connection offers exec: its client and a way to learn it was lost. */
export interface ExecChannelHost {
  client: Client
  label: string
  /** True once the connection is known to be gone. */
  readonly lost: boolean
  /** Register a call in flight; the connection calls `fail` when it drops. Returns the unregister function. */
  track(fail: (err: Error) => void): () => void
  /**
   * Runs the cancel path's `kill` of a command's group. It needs a session of its own while
   * the command still holds one, so the pool gives it priority; default: execOn here.
   */
  side?(command: string): Promise<unknown>
}

/** The connection dropped while a call was in flight: whether the command ran is unknown unless `notStarted`. */
export class ConnectionLostError extends SshError {
  constructor(
    label: string,
    /**
     * True only when the connection was already gone before the command was sent, so it
     * certainly did not run and sending it again is safe.
     */
    readonly notStarted: boolean,
    running = true,
  ) {
    super(
      'connection-lost',
      notStarted
        ? `the connection to ${label} was lost before the command was sent`
        : running
          ? `the connection to ${label} was lost while a command was running; it may or may not have completed`
          : `the connection to ${label} was lost while a command was starting; it may or may not have run`,
    )
    this.name = 'ConnectionLostError'
  }
}

/**
 * ssh2's `Channel.signal()` does nothing once our side of the channel has sent EOF (we
 * close stdin at once), yet the signal request is still valid in SSH until the channel
 * closes (RFC 4254 §6.9), so it is sent through the protocol object directly then.
 */
function sendSignal(ch: ClientChannel, name: 'TERM' | 'KILL'): void {
  const c = ch as unknown as {
    outgoing?: { id: number; state: string }
    _client?: { _protocol?: { signal(id: number, name: string): void } }
  }
  try {
    const state = c.outgoing?.state
    if (c.outgoing && c._client?._protocol && (state === 'open' || state === 'eof')) c._client._protocol.signal(c.outgoing.id, name)
    else ch.signal(name)
  } catch {
    /* the channel is already closing */
  }
}

function brief(command: string): string {
  const one = command.replace(/\s+/g, ' ')
  return one.length > 120 ? one.slice(0, 117) + '...' : one
}

/**
 * A cancellable command runs under this constant wrapper: it reports the session's
 * process group on the first stderr line (read from /proc, as `\x01p4lab-pgid:N`; the
 * line is removed before anything reaches the caller) and then `eval`s the quoted
 * command line in POSIX sh. On cancel, a second channel sends `kill -TERM -- -N` and,
 * after the grace period, KILL. This is needed because sshd refuses channel signals in
 * some setups (root logins: "session signalling requires privilege separation") and
 * never ends a session on a channel close while its command runs. sshd makes each
 * session its own process group, so the group is the command and everything it forked
 * that did not detach itself (detached processes belong to ./process.ts).
 */
const CANCEL_WRAPPER = `read -r _ _ _ _ g _ < /proc/$$/stat 2>/dev/null || g=; printf '\\001p4lab-pgid:%s\\n' "$g" >&2; eval "$1"`
const PGID_PREFIX = '\x01p4lab-pgid:'

/**
 * Run one command on a connection. Prefer `SshHost.exec`, which waits for (re)connection and
 * for a free session. `slot`, from the pool's scheduler, is told when the channel opens,
 * fails to open and closes.
 */
export function execOn(host: ExecChannelHost, command: string, opts: ExecOptions = {}, slot?: SessionSlot): Promise<ExecResult> {
  return new Promise<ExecResult>((resolve, reject) => {
    const out = new Capture(opts.maxCapture ?? 4 << 20)
    const err = new Capture(opts.maxCapture ?? 4 << 20)
    const onLine = opts.onLine
    const outLines = onLine ? new LineSplitter((l) => onLine(l, 'stdout')) : undefined
    const errLines = onLine ? new LineSplitter((l) => onLine(l, 'stderr')) : undefined
    const wrapped = opts.signal !== undefined
    const line = wrapped ? q(['sh', '-c', CANCEL_WRAPPER, 'p4lab-exec', command]) : command
    let stream: ClientChannel | undefined
    let settled = false
    let aborted = false
    let exitCode: number | null | undefined
    let exitSignal: string | null = null
    let killTimer: NodeJS.Timeout | undefined
    let pgid: number | undefined
    let errHead: Buffer | undefined = wrapped ? Buffer.alloc(0) : undefined

    let untrack: () => void = () => {} // track() may call back before it returns
    const cleanup = () => {
      untrack()
      opts.signal?.removeEventListener('abort', onAbort)
      if (killTimer) clearTimeout(killTimer)
    }
    const fail = (e: Error) => {
      if (settled) return
      settled = true
      cleanup()
      reject(e)
    }
    let sent = false
    untrack = host.track((e) => {
      if (!sent) fail(new ConnectionLostError(host.label, true))
      else if (stream === undefined) fail(new ConnectionLostError(host.label, false, false))
      else fail(e)
    })
    const abortError = () => new SshError('aborted', `cancelled: ${brief(command)}`)
    const killGroup = (sig: 'TERM' | 'KILL') => {
      if (pgid === undefined || pgid <= 1 || host.lost) return
      const line = `${cmd(['kill', `-${sig}`, '--', `-${pgid}`])} 2>/dev/null; true`
      ;(host.side ? host.side(line) : execOn(host, line)).catch(() => undefined)
    }
    const onAbort = () => {
      if (aborted || settled) return
      aborted = true
      if (stream) startCancel(stream) // else as soon as it opens
    }
    const startCancel = (ch: ClientChannel) => {
      killGroup('TERM')
      sendSignal(ch, 'TERM')
      killTimer = setTimeout(() => {
        killGroup('KILL')
        sendSignal(ch, 'KILL')
        ch.close()
        killTimer = setTimeout(() => fail(abortError()), 1000)
      }, opts.killGraceMs ?? 2000)
    }
    const onStderr = (b: Buffer, flush = false) => {
      if (errHead !== undefined) {
        errHead = Buffer.concat([errHead, b])
        const nl = errHead.indexOf(10)
        if (nl < 0 && errHead.length < 64 && !flush) return
        const head = errHead
        errHead = undefined
        const first = head.subarray(0, nl < 0 ? head.length : nl).toString('latin1')
        if (nl >= 0 && first.startsWith(PGID_PREFIX)) {
          const n = Number(first.slice(PGID_PREFIX.length))
          if (Number.isInteger(n) && n > 1) pgid = n
          if (aborted) killGroup('TERM') // the cancel came before we knew the group
          b = head.subarray(nl + 1)
        } else {
          b = head
        }
        if (b.length === 0) return
      }
      err.push(b)
      errLines?.push(b)
    }

    if (opts.signal?.aborted) {
      slot?.closed()
      return fail(abortError())
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true })

    if (settled) return slot?.closed() // the connection was already gone
    try {
      sent = true
      host.client.exec(line, (e, ch) => {
        if (e) {
          if (host.lost) {
            slot?.closed()
            return fail(new ConnectionLostError(host.label, false, false))
          }
          // A refusal (the server's session limit) is the scheduler's to retry, not the command's failure.
          const why = slot ? slot.openFailed(e) : e
          if (why instanceof ChannelRefusedError) return fail(why)
          return fail(new SshError('remote', `${host.label}: cannot start the command (${e.message}): ${brief(command)}`))
        }
        slot?.opened()
        ch.once('close', () => slot?.closed())
        stream = ch
        if (settled) {
          ch.close()
          return
        }
        ch.on('data', (b: Buffer) => {
          out.push(b)
          outLines?.push(b)
        })
        ch.stderr.on('data', (b: Buffer) => onStderr(b))
        ch.on('exit', (code: number | null, signal?: string) => {
          exitCode = code
          exitSignal = signal ?? null
        })
        ch.on('close', () => {
          if (errHead?.length) onStderr(Buffer.alloc(0), true)
          outLines?.end()
          errLines?.end()
          if (settled) return
          if (exitCode === undefined && host.lost) return fail(new ConnectionLostError(host.label, false))
          if (aborted) return fail(abortError())
          settled = true
          cleanup()
          resolve({
            code: exitCode ?? null,
            signal: exitSignal,
            stdout: out.buffer,
            stderr: err.buffer,
            truncated: out.truncated || err.truncated,
          })
        })
        if (opts.stdin !== undefined) ch.end(opts.stdin)
        else ch.end()
        if (aborted) startCancel(ch)
      })
    } catch (e) {
      // ssh2 throws synchronously only when it sent nothing (not connected). Its socket may be
      // gone before the close event has marked the connection lost: a loss all the same.
      slot?.openFailed(e as Error)
      if (host.lost || /not connected/i.test((e as Error).message)) fail(new ConnectionLostError(host.label, true))
      else fail(new SshError('remote', `${host.label}: cannot start the command: ${(e as Error).message}`))
    }
  })
}
