import type { Envelope, EventName, MethodName } from '@contract/index'

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'open' }
  /** The socket dropped; retryAt is when the next attempt starts (epoch ms). */
  | { kind: 'reconnecting'; attempt: number; retryAt: number }
  /** Nothing to connect with: no preload API and no token in the URL or session. */
  | { kind: 'no-token' }

/**
 * How the client reaches the core. Two implementations (Electron IPC, WebSocket bridge);
 * nothing above the client knows which one is in use.
 */
export interface Transport {
  /** Sends one call; resolves with the unparsed envelope. Rejects only if the transport fails. */
  call(method: MethodName, params: unknown): Promise<Envelope<unknown>>
  /** Registers a raw event listener; returns its unsubscribe function. */
  on(event: EventName, cb: (payload: unknown) => void): () => void
  /** Connection changes, including the initial state. */
  onState(cb: (state: ConnectionState) => void): () => void
  /** Skips the backoff wait, when there is one. */
  retryNow(): void
}
