// What every small action of a popover or a button shares: a busy flag (the button says so and
// takes no second click), the last error (shown beside it), and what to reload once it worked.
import { ref, type Ref } from 'vue'
import { errorMessage } from '../client'

export interface Action {
  busy: Ref<boolean>
  error: Ref<string | null>
  /**
   * Runs `fn` unless one is already running; on success `after` (a reload) runs too. A throw of
   * either becomes `error`. Resolves to fn's value, or undefined when it failed or was skipped.
   */
  run<T>(fn: () => Promise<T>, after?: (value: T) => Promise<unknown> | unknown): Promise<T | undefined>
  clear(): void
}

export function useAction(): Action {
  const busy = ref(false)
  const error = ref<string | null>(null)
  async function run<T>(fn: () => Promise<T>, after?: (value: T) => Promise<unknown> | unknown): Promise<T | undefined> {
    if (busy.value) return undefined
    busy.value = true
    error.value = null
    try {
      const value = await fn()
      await after?.(value)
      return value
    } catch (err) {
      error.value = errorMessage(err)
      return undefined
    } finally {
      busy.value = false
    }
  }
  return { busy, error, run, clear: () => (error.value = null) }
}
