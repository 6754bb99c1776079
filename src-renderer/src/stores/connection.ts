import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { Res } from '@contract/index'
import { call, onConnectionState, retryConnection, type ConnectionState } from '../client'

/** The link to the core: its state for the top bar and banner, and what the core says it is. */
export const useConnectionStore = defineStore('connection', () => {
  const state = shallowRef<ConnectionState>({ kind: 'connecting' })
  const info = ref<Res<'app.info'> | null>(null)
  /** Bumped on every (re)connection, so stores can refetch what they missed meanwhile. */
  const epoch = ref(0)
  let started = false

  function start(): void {
    if (started) return
    started = true
    onConnectionState((next) => {
      state.value = next
      if (next.kind !== 'open') return
      epoch.value++
      if (!info.value) {
        call('app.info', {}).then(
          (res) => (info.value = res),
          (err) => console.warn('p4lab: app.info failed', err),
        )
      }
    })
  }

  return { state, info, epoch, start, retryNow: retryConnection }
})
