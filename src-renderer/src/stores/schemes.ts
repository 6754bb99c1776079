import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { Scheme } from '@contract/index'
import { call, errorMessage } from '../client'
import { schemeTables } from '../lib/tables'

/**
 * The schemes the core knows ('schemes.list'), loaded once: what the UI shows per scheme
 * (switch tables, labels, parameter help) comes from here, so a new scheme folder needs no
 * renderer change.
 */
export const useSchemesStore = defineStore('schemes', () => {
  const list = ref<Scheme[]>([])
  const loaded = ref(false)
  const error = ref<string | null>(null)
  let pending: Promise<void> | null = null

  /** Every scheme's switch tables, each once. */
  const tables = computed(() => schemeTables(list.value))

  /** Loads the list unless it is loaded; a failed load is tried again on the next call. */
  function load(): Promise<void> {
    if (loaded.value) return Promise.resolve()
    pending ??= call('schemes.list', {})
      .then((schemes) => {
        list.value = schemes
        loaded.value = true
        error.value = null
      })
      .catch((err) => {
        error.value = errorMessage(err)
      })
      .finally(() => {
        pending = null
      })
    return pending
  }

  function byName(name: string): Scheme | null {
    return list.value.find((s) => s.name === name) ?? null
  }

  return { list, loaded, error, tables, load, byName }
})
