import type { ApiError, SpecError } from '@contract/index'

/** 'disconnected' is ours: the call never got an answer because the transport went away. */
export type ApiCallErrorCode = ApiError['code'] | 'disconnected'

/** A method call that the core refused or could not answer; carries the contract's error. */
export class ApiCallError extends Error {
  readonly code: ApiCallErrorCode
  readonly specErrors: SpecError[]
  readonly method: string

  constructor(method: string, code: ApiCallErrorCode, message: string, specErrors: SpecError[] = []) {
    super(message)
    this.name = 'ApiCallError'
    this.method = method
    this.code = code
    this.specErrors = specErrors
  }
}

/** A message fit for the UI from anything a call may throw. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiCallError) return `${err.message} (${err.method}: ${err.code})`
  if (err instanceof Error) return err.message
  return String(err)
}
