import { METHOD_NAMES, methods, type Envelope, type Handlers, type MethodName } from '../contract'
import { CoreError } from './errors'

export type Dispatch = (method: string, params: unknown) => Promise<Envelope<unknown>>

/**
 * The one channel abstraction: IPC and the WebSocket bridge both hand raw (untrusted)
 * method names and params to this, and get an envelope back. Requests are validated
 * here, so no binding can forget to.
 */
export function createDispatch(handlers: Handlers, onInternalError?: (err: unknown) => void): Dispatch {
  const known = new Set<string>(METHOD_NAMES)
  return async (method, params) => {
    if (!known.has(method)) {
      return { ok: false, error: { code: 'invalid-request', message: `unknown method '${method}'` } }
    }
    const m = method as MethodName
    const parsed = methods[m].req.safeParse(params ?? {})
    if (!parsed.success) {
      const detail = parsed.error.issues
        .map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`)
        .join('; ')
      return { ok: false, error: { code: 'invalid-request', message: `${method}: ${detail}` } }
    }
    try {
      const handler = handlers[m] as (req: unknown) => Promise<unknown>
      return { ok: true, result: await handler(parsed.data) }
    } catch (err) {
      if (err instanceof CoreError) return { ok: false, error: err.toApiError() }
      onInternalError?.(err)
      const message = err instanceof Error ? err.message : String(err)
      return { ok: false, error: { code: 'internal', message } }
    }
  }
}
