import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue'
import type { Res } from '@contract/index'
import { call, errorMessage } from '../client'
import { fabricOrigin, orderEnds, problemsByElement, TextHistory, TOPOLOGY_TEMPLATES } from '../lib/topoEditor'
import { layoutByTier, placeNew, type Point } from '../lib/topoLayout'
import {
  addLink,
  addNode,
  applyGenerator,
  convertToCustom,
  freeName,
  readTopology,
  readTopologyBlock,
  removeElements,
  setFailure,
  setLinkSettings,
  type BuiltGraph,
  type EdTopology,
  type LinkSettings,
  type Tier,
} from '../lib/topoYaml'

export type Preview = Res<'experiments.fabric'>
const DEBOUNCE_MS = 200

/**
 * The topology editor's state over one experiment text: the graph read from it (the core's built
 * graph for a generator), the selection, positions (saved beside the experiment), problems, and
 * every edit as a rewrite of the text with undo and redo.
 */
export function useTopologyEditor(model: Ref<string>, experimentId: Ref<number | null>) {
  // The text as of the last edit: a v-model's value only follows after the parent re-renders,
  // and an edit right after another must start from the first one's result.
  const text = ref(model.value)
  /**
   * Where each node was drawn before the last edit made here: an edit moves no node already
   * drawn (the layout by tier would: the 22nd host turned the row of hosts into blocks, a host
   * linked to a ToR went into its block). Kept for this session only; the text changed elsewhere
   * (the Spec tab, Revert), R, a template or another experiment lay the fabric out afresh.
   */
  const kept = ref<Record<string, Point>>({})
  watch(model, (v) => {
    if (v === text.value) return
    text.value = v
    kept.value = {}
  })
  const setText = (v: string) => {
    text.value = v
    model.value = v
  }
  const preview = shallowRef<Preview | null>(null)
  /** The text the preview was built from: its problems point at links by index, so they count for that text only. */
  const previewOf = ref<string | null>(null)
  const previewError = ref<string | null>(null)
  const editError = ref<string | null>(null)
  /** Set when the last edit turned a generator into explicit nodes and links. */
  const converted = ref(false)
  const selNodes = ref<string[]>([])
  const selLinks = ref<string[]>([])
  const saved = ref<Record<string, Point>>({})
  const history = new TextHistory()
  const historyTick = ref(0)

  let seq = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  async function refresh(): Promise<void> {
    const mine = ++seq
    try {
      const yaml = text.value
      // A stored experiment's own file decides where its workload files are read (a CLI run's path).
      const id = experimentId.value
      const res = await call('experiments.fabric', id !== null ? { yaml, from: id } : { yaml })
      if (mine !== seq) return
      preview.value = res
      previewOf.value = yaml
      previewError.value = null
    } catch (err) {
      if (mine === seq) previewError.value = errorMessage(err)
    }
  }
  watch(
    text,
    () => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => void refresh(), DEBOUNCE_MS)
    },
    { immediate: true },
  )
  onScopeDispose(() => timer && clearTimeout(timer))

  const built = computed<BuiltGraph | null>(() => preview.value?.graph ?? null)
  const topo = computed<EdTopology | null>(() => readTopology(text.value, built.value))
  /** The template the topology block comes from, if one makes it exactly (the generate row shows it). */
  const origin = computed(() => fabricOrigin(readTopologyBlock(text.value)))
  const positions = computed(() => (topo.value ? layoutByTier(topo.value, { ...kept.value, ...saved.value }) : new Map<string, Point>()))
  const problems = computed(() => preview.value?.errors ?? [])
  const problemMap = computed(() =>
    topo.value && previewOf.value === text.value ? problemsByElement(problems.value, topo.value) : new Map<string, string[]>(),
  )
  const marks = computed(() => new Map((preview.value?.marks ?? []).map((m) => [m.link, m])))

  async function loadLayout(): Promise<void> {
    const id = experimentId.value
    saved.value = id === null ? {} : (await call('experiments.layout', { id })).positions
  }
  watch(
    experimentId,
    () => {
      kept.value = {}
      void loadLayout().catch((err) => (editError.value = errorMessage(err)))
    },
    { immediate: true },
  )

  async function persistLayout(): Promise<void> {
    const id = experimentId.value
    if (id === null) return
    try {
      await call('experiments.saveLayout', { id, positions: saved.value })
    } catch (err) {
      editError.value = `Could not save the positions: ${errorMessage(err)}`
    }
  }

  /** Nodes placed by hand: saved with the places the others were kept at, so the picture the user arranged is the one saved. */
  function moved(points: Record<string, Point>): void {
    const drawn = Object.fromEntries(Object.entries(kept.value).filter(([name]) => positions.value.has(name)))
    saved.value = { ...drawn, ...saved.value, ...points }
    void persistLayout()
  }

  /** Forgets the manual and kept positions: every node goes back to its tier's row. */
  function autoLayout(): void {
    saved.value = {}
    kept.value = {}
    void persistLayout()
  }

  /** Every node drawn now stays where it is through the next edit. */
  function keep(): void {
    kept.value = { ...kept.value, ...Object.fromEntries([...positions.value].map(([n, p]) => [n, { x: p.x, y: p.y }])) }
  }

  function edit(fn: (t: string, topo: EdTopology | null) => string, opts: { structural?: boolean } = {}): boolean {
    editError.value = null
    try {
      let next = text.value
      let current = topo.value
      converted.value = false
      if (opts.structural && current?.generated) {
        if (!built.value) throw new Error('the fabric is still being built; try again in a moment')
        next = convertToCustom(next, built.value, new Set((preview.value?.marks ?? []).filter((m) => m.slow).map((m) => m.link)))
        current = readTopology(next, null)
        converted.value = true
      }
      next = fn(next, current)
      if (next === text.value) return false
      keep()
      history.push(text.value)
      historyTick.value++
      setText(next)
      return true
    } catch (err) {
      editError.value = errorMessage(err)
      return false
    }
  }

  const need = (t: EdTopology | null): EdTopology => {
    if (!t) throw new Error('the topology does not parse yet; fix the YAML first')
    return t
  }

  function applyTemplate(id: string, params: Record<string, number>): void {
    const tpl = TOPOLOGY_TEMPLATES.find((t) => t.id === id)
    if (!tpl) return
    if (edit((t) => applyGenerator(t, tpl.mapping(params)))) {
      saved.value = {}
      kept.value = {}
      void persistLayout()
    }
  }

  function addSwitchOrHost(tier: Tier, at?: Point): string | null {
    let name: string | null = null
    // Beside its tier's nodes as they are drawn now (they stay there).
    const spot = at ?? (topo.value ? placeNew(topo.value, positions.value, tier) : null)
    const ok = edit(
      (t, cur) => {
        const c = need(cur)
        name = freeName(c, tier)
        const pod = c.nodes.find((n) => n.name === selNodes.value[0])?.pod ?? null
        return addNode(t, { name, tier, pod: tier === 'tor' || tier === 'agg' ? pod : null })
      },
      { structural: true },
    )
    if (ok && name) {
      if (at) moved({ [name]: at })
      else if (spot) kept.value = { ...kept.value, [name]: spot }
      selNodes.value = [name]
      selLinks.value = []
    }
    return ok ? name : null
  }

  /** Links the two selected nodes (a second link between them is a parallel one). */
  function linkSelected(): void {
    if (selNodes.value.length !== 2) {
      editError.value = 'select exactly two nodes to link (Shift+click, or Shift+arrow keys)'
      return
    }
    const [x, y] = selNodes.value
    const ok = edit(
      (t, cur) => {
        const [a, b] = orderEnds(need(cur), x, y)
        return addLink(t, a, b)
      },
      { structural: true },
    )
    if (!ok) return
    const t = topo.value
    if (t && t.links.length > 0) {
      selNodes.value = []
      selLinks.value = [t.links[t.links.length - 1].name]
    }
  }

  function deleteSelected(): void {
    if (selNodes.value.length === 0 && selLinks.value.length === 0) return
    const what = { nodes: [...selNodes.value], links: [...selLinks.value] }
    if (edit((t, cur) => removeElements(t, need(cur), what), { structural: true })) {
      selNodes.value = []
      selLinks.value = []
    }
  }

  function setLink(link: string, settings: LinkSettings): void {
    edit((t, cur) => setLinkSettings(t, need(cur), link, settings), { structural: true })
  }

  function fail(link: string, failure: { at: string; recover?: string | null } | null): void {
    edit((t) => setFailure(t, link, failure))
  }

  function undo(): void {
    const prev = history.undo(text.value)
    if (prev !== null) setText(prev)
    historyTick.value++
  }

  function redo(): void {
    const next = history.redo(text.value)
    if (next !== null) setText(next)
    historyTick.value++
  }

  const canUndo = computed(() => historyTick.value >= 0 && history.canUndo)
  const canRedo = computed(() => historyTick.value >= 0 && history.canRedo)

  /** The preview (problems, marks) is of the text as it stands. */
  const current = computed(() => previewOf.value === text.value)

  return {
    preview,
    current,
    previewError,
    editError,
    converted,
    topo,
    origin,
    positions,
    problems,
    problemMap,
    marks,
    selNodes,
    selLinks,
    canUndo,
    canRedo,
    moved,
    autoLayout,
    applyTemplate,
    addSwitchOrHost,
    linkSelected,
    deleteSelected,
    setLink,
    fail,
    undo,
    redo,
    persistLayout,
  }
}

export type TopologyEditor = ReturnType<typeof useTopologyEditor>
