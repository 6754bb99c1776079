import { onScopeDispose, shallowRef, watch, type Ref } from 'vue'
import type { Res, TopologyLinkMark } from '@contract/index'
import { call, errorMessage } from '../client'

/**
 * The fabric the Fabric tab draws before a run (or beside one): the run's own text when a run is
 * shown, else the experiment's text as it stands, built by the core as soon as the topology
 * parses, with each link's failure and slowness.
 */
export function useFabricPreview(yaml: Ref<string | null>, runId: Ref<number | null>) {
  const preview = shallowRef<Res<'experiments.fabric'> | null>(null)
  const marks = shallowRef<ReadonlyMap<string, TopologyLinkMark>>(new Map())
  const error = shallowRef<string | null>(null)
  let seq = 0
  let timer: ReturnType<typeof setTimeout> | null = null

  async function load(): Promise<void> {
    const mine = ++seq
    try {
      const id = runId.value
      const text = id !== null ? ((await call('runs.ranWith', { id })).yaml ?? yaml.value) : yaml.value
      if (text === null) return
      const res = await call('experiments.fabric', { yaml: text })
      if (mine !== seq) return
      preview.value = res
      marks.value = new Map(res.marks.map((m) => [m.link, m]))
      error.value = null
    } catch (err) {
      if (mine === seq) error.value = errorMessage(err)
    }
  }
  watch(
    [yaml, runId],
    () => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => void load(), 250)
    },
    { immediate: true },
  )
  onScopeDispose(() => timer && clearTimeout(timer))
  return { preview, marks, error }
}
