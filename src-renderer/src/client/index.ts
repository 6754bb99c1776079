import { z } from 'zod'
import {
  ApiError,
  events,
  methods,
  type EventName,
  type EventPayload,
  type MethodName,
  type Req,
  type Res,
} from '@contract/index'
import { ApiCallError } from './errors'
import { IpcTransport } from './ipc'
import { takeBridgeToken } from './token'
import type { ConnectionState, Transport } from './transport'
import { TransportClosedError, WsTransport } from './ws'

export { ApiCallError, asSentence, errorDetail, errorMessage, vErrorDetail } from './errors'
export type { ConnectionState } from './transport'

// Zod compiles object parsers with `new Function` unless told not to; our CSP has no
// 'unsafe-eval', and probing for it would log a violation on every start.
z.config({ jitless: true })

/** Neither IPC nor a token: every call fails with a message that says what to do. */
class NoTransport implements Transport {
  call(method: MethodName): Promise<never> {
    return Promise.reject(
      new ApiCallError(method, 'disconnected', 'No connection token. Open the URL printed by `npm start` or `p4lab serve`.'),
    )
  }
  on(): () => void {
    return () => {}
  }
  onState(cb: (state: ConnectionState) => void): () => void {
    cb({ kind: 'no-token' })
    return () => {}
  }
  retryNow(): void {}
}

function pickTransport(): Transport {
  if (window.p4lab) return new IpcTransport(window.p4lab)
  const token = takeBridgeToken()
  if (token) return new WsTransport(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`)
  // A page p4lab serve gave out was asked for with its token, which it keeps as a cookie for
  // this port: a new tab of the app connects with that alone.
  if (location.protocol === 'http:') return new WsTransport(`ws://${location.host}/ws`)
  return new NoTransport()
}

let transport: Transport | null = null
function current(): Transport {
  transport ??= pickTransport()
  return transport
}

/** Calls a contract method; the result is checked against the contract before it is returned. */
export async function call<M extends MethodName>(method: M, params: Req<M>): Promise<Res<M>> {
  const schema = methods[method]
  const req = schema.req.safeParse(params)
  if (!req.success) {
    throw new ApiCallError(method, 'invalid-request', `The app made a request the contract refuses: ${z.prettifyError(req.error)}`)
  }
  let env
  try {
    env = await current().call(method, req.data)
  } catch (err) {
    if (err instanceof TransportClosedError) throw new ApiCallError(method, 'disconnected', err.message)
    throw err
  }
  if (!env.ok) {
    const parsed = ApiError.safeParse(env.error)
    if (!parsed.success) throw new ApiCallError(method, 'internal', 'The server answered with an error the app cannot read')
    throw new ApiCallError(method, parsed.data.code, parsed.data.message, parsed.data.specErrors)
  }
  const res = schema.res.safeParse(env.result)
  if (!res.success) {
    throw new ApiCallError(
      method,
      'internal',
      `The server's answer does not match the contract: ${z.prettifyError(res.error)}`,
    )
  }
  return res.data as Res<M>
}

/** Listens to a contract event; payloads that do not match the contract are dropped with a warning. */
export function on<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void {
  const schema = events[event]
  return current().on(event, (raw) => {
    const parsed = schema.safeParse(raw)
    if (parsed.success) cb(parsed.data as EventPayload<E>)
    else console.warn(`p4lab: dropped a malformed ${event} event`, z.prettifyError(parsed.error))
  })
}

export function onConnectionState(cb: (state: ConnectionState) => void): () => void {
  return current().onState(cb)
}

export function retryConnection(): void {
  current().retryNow()
}
