import { EVENT_NAMES, type Envelope, type EventName, type MethodName } from '@contract/index'
import { backoffDelayMs } from '../lib/backoff'
import type { ConnectionState, Transport } from './transport'

type Pending = { resolve: (env: Envelope<unknown>) => void; reject: (err: Error) => void }

type ServerMessage =
  | { type: 'result'; id: number; ok: true; result: unknown }
  | { type: 'result'; id: number; ok: false; error: unknown }
  | { type: 'event'; event: string; payload: unknown }
  /** The server could not make sense of something we sent. */
  | { type: 'error'; message: string }

/** Thrown to callers whose request was on the wire when the socket dropped. */
export class TransportClosedError extends Error {
  constructor() {
    // Which call it was is the ApiCallError's detail, not part of the sentence.
    super('The connection to the p4lab server dropped before it answered; what was asked may or may not have been done.')
    this.name = 'TransportClosedError'
  }
}

/**
 * The WebSocket bridge of `p4lab serve`. Calls made while disconnected wait for the next
 * connection; calls in flight when it drops are rejected, since we cannot know if they ran.
 */
export class WsTransport implements Transport {
  private socket: WebSocket | null = null
  private nextId = 1
  private attempt = 0
  private retryTimer: ReturnType<typeof setTimeout> | null = null
  private readonly inFlight = new Map<number, Pending>()
  private readonly outbox: string[] = []
  private readonly listeners = new Map<EventName, Set<(payload: unknown) => void>>()
  private readonly stateListeners = new Set<(state: ConnectionState) => void>()
  private state: ConnectionState = { kind: 'connecting' }

  constructor(private readonly url: string) {
    this.connect()
  }

  call(method: MethodName, params: unknown): Promise<Envelope<unknown>> {
    const id = this.nextId++
    const text = JSON.stringify({ type: 'call', id, method, params })
    return new Promise((resolve, reject) => {
      this.inFlight.set(id, { resolve, reject })
      if (this.isOpen()) this.socket!.send(text)
      else this.outbox.push(text)
    })
  }

  on(event: EventName, cb: (payload: unknown) => void): () => void {
    let set = this.listeners.get(event)
    if (!set) {
      set = new Set()
      this.listeners.set(event, set)
      if (this.isOpen()) this.sendSubscribe()
    }
    set.add(cb)
    return () => {
      set.delete(cb)
    }
  }

  onState(cb: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(cb)
    cb(this.state)
    return () => this.stateListeners.delete(cb)
  }

  retryNow(): void {
    if (this.state.kind !== 'reconnecting') return
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = null
    this.connect()
  }

  private isOpen(): boolean {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN
  }

  private setState(state: ConnectionState): void {
    this.state = state
    for (const cb of this.stateListeners) cb(state)
  }

  private connect(): void {
    if (this.attempt === 0) this.setState({ kind: 'connecting' })
    const socket = new WebSocket(this.url)
    this.socket = socket
    socket.onopen = () => {
      this.attempt = 0
      this.setState({ kind: 'open' })
      this.sendSubscribe()
      // Sent only once the subscription is in, so no event of a run we start is missed.
      for (const text of this.outbox.splice(0)) socket.send(text)
    }
    socket.onmessage = (ev) => this.receive(ev.data)
    socket.onclose = () => {
      if (this.socket !== socket) return
      this.socket = null
      this.failInFlight()
      this.scheduleReconnect()
    }
    // An error is always followed by close; the reconnect happens there.
    socket.onerror = () => {}
  }

  private sendSubscribe(): void {
    // The full list every time, so it does not matter whether the server adds or replaces.
    const events = EVENT_NAMES.filter((e) => this.listeners.has(e))
    if (events.length > 0) this.socket?.send(JSON.stringify({ type: 'subscribe', events }))
  }

  private failInFlight(): void {
    const queued = new Set(this.outbox.map((text) => (JSON.parse(text) as { id: number }).id))
    for (const [id, pending] of this.inFlight) {
      if (queued.has(id)) continue
      this.inFlight.delete(id)
      pending.reject(new TransportClosedError())
    }
  }

  private scheduleReconnect(): void {
    this.attempt += 1
    const delay = backoffDelayMs(this.attempt, Math.random())
    this.setState({ kind: 'reconnecting', attempt: this.attempt, retryAt: Date.now() + delay })
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      this.connect()
    }, delay)
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return
    let msg: ServerMessage
    try {
      msg = JSON.parse(data) as ServerMessage
    } catch {
      console.warn('p4lab: ignoring a message that is not JSON')
      return
    }
    if (msg.type === 'result') {
      const pending = this.inFlight.get(msg.id)
      if (!pending) return
      this.inFlight.delete(msg.id)
      pending.resolve(
        msg.ok ? { ok: true, result: msg.result } : ({ ok: false, error: msg.error } as Envelope<unknown>),
      )
    } else if (msg.type === 'event') {
      const set = this.listeners.get(msg.event as EventName)
      if (set) for (const cb of set) cb(msg.payload)
    } else if (msg.type === 'error') {
      console.warn(`p4lab: the server rejected a message: ${msg.message}`)
    }
  }
}
