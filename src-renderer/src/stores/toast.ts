import { defineStore } from 'pinia'
import { ref } from 'vue'
import { errorMessage } from '../client'

/** How long a toast with Undo stays. The thing undone is in the trash meanwhile, and after too. */
export const UNDO_MS = 10_000

export interface Toast {
  id: number
  message: string
  /** Puts back what the action did (a restore); the toast then says so. */
  undo?: () => Promise<void>
  error?: string
}

/** Short notices at the bottom of the window; one with Undo for a delete or an archive. */
export const useToastStore = defineStore('toast', () => {
  const toasts = ref<Toast[]>([])
  let next = 1

  function dismiss(id: number): void {
    toasts.value = toasts.value.filter((t) => t.id !== id)
  }

  function show(message: string, undo?: () => Promise<void>): number {
    const id = next++
    toasts.value = [...toasts.value.slice(-2), { id, message, undo }]
    setTimeout(() => dismiss(id), UNDO_MS)
    return id
  }

  async function runUndo(t: Toast): Promise<void> {
    if (!t.undo) return
    const undo = t.undo
    t.undo = undefined
    try {
      await undo()
      dismiss(t.id)
      show('Undone.')
    } catch (err) {
      t.error = errorMessage(err)
    }
  }

  return { toasts, show, dismiss, runUndo }
})
