import type { ApiError, SpecError } from '../contract'

/** An error the core reports to a caller on purpose, with a code the UI can act on. */
export class CoreError extends Error {
  constructor(
    readonly code: ApiError['code'],
    message: string,
    readonly specErrors?: SpecError[],
  ) {
    super(message)
    this.name = 'CoreError'
  }

  toApiError(): ApiError {
    return this.specErrors
      ? { code: this.code, message: this.message, specErrors: this.specErrors }
      : { code: this.code, message: this.message }
  }
}

export function notFound(what: string, id: number | string): CoreError {
  return new CoreError('not-found', `${what} ${id} does not exist`)
}
