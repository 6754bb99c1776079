import type { Envelope, EventName, MethodName } from '@contract/index'
import type { ConnectionState, Transport } from './transport'

/** The shape the preload exposes: one function per method, plus `on`. */
export type PreloadApi = {
  [M in MethodName]: (params: unknown) => Promise<Envelope<unknown>>
} & {
  on(event: EventName, cb: (payload: unknown) => void): () => void
}

declare global {
  interface Window {
    p4lab?: PreloadApi
  }
}

/** Electron: the preload's explicit API. The main process is always there, so always open. */
export class IpcTransport implements Transport {
  constructor(private readonly api: PreloadApi) {}

  call(method: MethodName, params: unknown): Promise<Envelope<unknown>> {
    return this.api[method](params)
  }

  on(event: EventName, cb: (payload: unknown) => void): () => void {
    return this.api.on(event, cb)
  }

  onState(cb: (state: ConnectionState) => void): () => void {
    cb({ kind: 'open' })
    return () => {}
  }

  retryNow(): void {}
}
