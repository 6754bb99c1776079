import type { Directive } from 'vue'
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

/**
 * The core's messages are written for the CLI, after "p4lab: " ("an experiment named 'x'
 * already exists"): on the page they begin a sentence and end it. A message that starts with a
 * name ("query: column 3", "broken.tar.gz: archive refused", "'sim' is built in") keeps it as
 * written, and one of several lines is left as it is laid out.
 */
export function asSentence(message: string): string {
  let s = message.trim()
  if (/^[a-z]+(?=[ ,;])/.test(s)) s = s[0].toUpperCase() + s.slice(1)
  if (!s.includes('\n') && /[\p{L}\p{N}'")\]]$/u.test(s)) s += '.'
  return s
}

/** The call and its code ("experiments.rename: conflict") of the latest messages shown, newest last. */
const details = new Map<string, string>()
const KEEP = 50

/**
 * A message fit for the UI from anything a call may throw: a plain sentence. Which call failed
 * and with what code is for whoever debugs it, not for the sentence: `errorDetail` gives it,
 * and `v-error-detail` puts it in the title of the element that shows the message.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiCallError) {
    const text = asSentence(err.message)
    details.delete(text)
    details.set(text, `${err.method}: ${err.code}`)
    if (details.size > KEEP) details.delete(details.keys().next().value!)
    return text
  }
  if (err instanceof Error) return err.message
  return String(err)
}

/**
 * "method: code" of the call whose message `shown` is or holds ("Could not save: <message>"),
 * the latest such call's; null for text no call's error gave.
 */
export function errorDetail(shown: string | null | undefined): string | null {
  if (!shown) return null
  const exact = details.get(shown)
  if (exact) return exact
  let found: string | null = null
  for (const [text, detail] of details) if (shown.includes(text)) found = detail
  return found
}

function setDetail(el: HTMLElement, shown: string | null | undefined): void {
  const detail = errorDetail(shown)
  if (detail) el.title = detail
  else el.removeAttribute('title')
}

/** `v-error-detail="message"`: the element's title names the call and code behind the message it shows. */
export const vErrorDetail: Directive<HTMLElement, string | null | undefined> = {
  mounted: (el, b) => setDetail(el, b.value),
  updated: (el, b) => setDetail(el, b.value),
  getSSRProps: (b) => {
    const detail = errorDetail(b.value)
    return detail ? { title: detail } : {}
  },
}
