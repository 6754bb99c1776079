import { onScopeDispose, ref, watch, type Ref } from 'vue'
import type { SpecError } from '@contract/index'
import { errorMessage } from '../client'
import { useExperimentsStore, type SpecSource } from '../stores/experiments'

export type ValidationState =
  | { kind: 'pending' }
  | { kind: 'valid'; runCount: number }
  | { kind: 'invalid'; errors: SpecError[] }
  /** The validator itself could not be reached; saving is still refused. */
  | { kind: 'unavailable'; message: string }

const DEBOUNCE_MS = 250

/** Validates the YAML as it is typed: debounced, and only the answer to the latest text counts. */
export function useSpecValidation(yaml: Ref<string>, where: Ref<SpecSource>) {
  const experiments = useExperimentsStore()
  const state = ref<ValidationState>({ kind: 'pending' })
  let timer: ReturnType<typeof setTimeout> | null = null
  let seq = 0

  async function validateNow(): Promise<void> {
    const mine = ++seq
    try {
      const res = await experiments.validate(yaml.value, where.value)
      if (mine !== seq) return
      state.value = res.ok ? { kind: 'valid', runCount: res.runCount } : { kind: 'invalid', errors: res.errors }
    } catch (err) {
      if (mine !== seq) return
      state.value = { kind: 'unavailable', message: errorMessage(err) }
    }
  }

  watch(
    [yaml, where],
    () => {
      state.value = { kind: 'pending' }
      seq++ // an answer still in flight is for older text
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => {
        timer = null
        void validateNow()
      }, DEBOUNCE_MS)
    },
    { immediate: true },
  )

  onScopeDispose(() => {
    if (timer) clearTimeout(timer)
  })

  return { state, validateNow }
}
