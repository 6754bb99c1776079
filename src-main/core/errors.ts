import type { ApiError, SpecError } from '../contract'
import { describeControl, findControl, printable } from '../model/printable'

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

/**
 * `text` as given, or an invalid-request naming the control character it holds: names, tags and
 * notes reach terminals and the experiment's YAML, which refuses them too. Notes keep line feeds and tabs.
 */
export function printableOrRefuse(what: string, text: string, o: { multiLine?: boolean } = {}): string {
  const found = findControl(o.multiLine ? text.replace(/[\n\t]/g, ' ') : text)
  if (found) {
    throw new CoreError('invalid-request', `${what} holds the control character ${describeControl(found.char)} at position ${found.index + 1} ('${printable(text)}'); control characters are refused${o.multiLine ? ' (line feeds and tabs are kept)' : ''}`)
  }
  return text
}
