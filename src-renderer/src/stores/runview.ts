import { defineStore } from 'pinia'
import { markRaw, ref, shallowRef, type ShallowRef } from 'vue'
import type { FabricGraph, RunEvent, RunFlows, SeriesDef } from '@contract/index'
import { call, errorMessage, on } from '../client'
import { addPointStats, type PointTotals } from '../lib/intRows'
import type { StatMode } from '../lib/window'

export type RunTab = 'overview' | 'fabric' | 'queues' | 'traffic' | 'int'
export const RUN_TABS: ReadonlyArray<{ id: RunTab; label: string }> = [
  { id: 'overview', label: 'Overview' },
  { id: 'fabric', label: 'Fabric' },
  { id: 'queues', label: 'Queues' },
  { id: 'traffic', label: 'Traffic' },
  { id: 'int', label: 'INT' },
]

/** What the fabric view has open: a link's series, a switch's tables, or a port's series. */
export type Selection = { kind: 'link'; link: string } | { kind: 'switch'; name: string } | { kind: 'port'; port: string } | null

/** Something fetched once per run: its value, or why not. */
export interface Fetched<T> {
  runId: number | null
  value: T | null
  loading: boolean
  error: string | null
}
const none = <T>(): Fetched<T> => ({ runId: null, value: null, loading: false, error: null })

/** While the run on screen streams INT points: its series by id, and their running totals ('run.points'). */
export interface LiveInt {
  runId: number | null
  defs: ReadonlyMap<number, SeriesDef>
  totals: ReadonlyMap<number, PointTotals>
}
const noLiveInt = (runId: number | null = null): LiveInt => ({ runId, defs: new Map(), totals: new Map() })

/** The raw-report table keeps this many of the newest int.report events. */
const EVENTS_KEPT = 200

/** Windows the fabric's mean and p95 are taken over, in sim ms (Infinity: the whole run so far). */
export const WINDOWS_MS: readonly number[] = [1, 10, 100, Infinity]

/**
 * The run views' shared state: which tab, the time cursor (replay), how the fabric colours
 * (last, mean or p95 over a window), what is selected, and the per-run data beside the series
 * (the fabric graph, flows, events), fetched once and kept out of deep reactivity.
 */
export const useRunViewStore = defineStore('runView', () => {
  const tab = ref<RunTab>('overview')
  const mode = ref<StatMode>('last')
  const windowMs = ref(10)
  /** Sim ms the views show; null follows the newest sample (live) or the end (replay). */
  const cursorMs = ref<number | null>(null)
  const selection = ref<Selection>(null)
  /** An instant picked on a chart or the heatmap: "what was on the wire then". */
  const instantMs = ref<number | null>(null)
  const runId = ref<number | null>(null)

  const fabric = shallowRef<Fetched<FabricGraph>>(none())
  const flows = shallowRef<Fetched<RunFlows>>(none())
  const events = shallowRef<Fetched<RunEvent[]>>(none())
  const liveInt = shallowRef<LiveInt>(noLiveInt())
  const graphs = new Map<number, FabricGraph>()

  /** The run on screen changed: the cursor, selection and per-run data start over. */
  function setRun(id: number | null): void {
    if (id === runId.value) return
    runId.value = id
    cursorMs.value = null
    instantMs.value = null
    flows.value = none()
    events.value = none()
    liveInt.value = noLiveInt(id)
    defsAsked = null
    fabric.value = none()
    if (id !== null) void loadFabric(id)
  }

  async function fetchInto<T extends object>(target: ShallowRef<Fetched<T>>, id: number, get: () => Promise<T>): Promise<void> {
    target.value = { runId: id, value: null, loading: true, error: null }
    try {
      const v = await get()
      if (runId.value === id) target.value = { runId: id, value: markRaw(v), loading: false, error: null }
    } catch (err) {
      if (runId.value === id) target.value = { runId: id, value: null, loading: false, error: errorMessage(err) }
    }
  }

  async function loadFabric(id: number): Promise<void> {
    const cached = graphs.get(id)
    if (cached) {
      fabric.value = { runId: id, value: cached, loading: false, error: null }
      return
    }
    await fetchInto(fabric, id, async () => {
      const g = await call('runs.fabric', { id })
      graphs.set(id, g)
      return g
    })
  }

  /** Flows are fetched when a view needs them (the traffic view), and again once the run ends. */
  function needFlows(force = false): void {
    const id = runId.value
    if (id === null || (!force && flows.value.runId === id && (flows.value.value || flows.value.loading))) return
    void fetchInto(flows, id, () => call('runs.flows', { id }))
  }

  function needEvents(force = false): void {
    const id = runId.value
    if (id === null || (!force && events.value.runId === id && (events.value.value || events.value.loading))) return
    void fetchInto(events, id, () => call('runs.events', { id, kinds: ['int.report'], limit: EVENTS_KEPT }))
  }

  /** A copy of the live INT state with these changes, published (views redraw on a new object). */
  function publishLive(defs: Map<number, SeriesDef>, totals: Map<number, PointTotals>): void {
    liveInt.value = { runId: runId.value, defs, totals }
  }

  let defsAsked: number | null = null
  /** Names the series of a run this window joined after its 'run.series' events went by. */
  async function fetchDefs(id: number): Promise<void> {
    if (defsAsked === id) return
    defsAsked = id
    try {
      const defs = await call('runs.seriesDefs', { id })
      if (runId.value === id) addDefs(defs)
    } catch {
      if (defsAsked === id) defsAsked = null // asked again with the next summary
    }
  }

  function addDefs(defs: readonly SeriesDef[]): void {
    const known = new Map(liveInt.value.defs)
    for (const d of defs) known.set(d.id, d)
    publishLive(known, new Map(liveInt.value.totals))
  }

  let subscribed = false
  /** Live INT: the series defined while the run streams, their point summaries, and int.report events. */
  function subscribe(): void {
    if (subscribed) return
    subscribed = true
    on('run.series', (p) => {
      if (p.runId === runId.value) addDefs(p.defs)
    })
    on('run.points', (p) => {
      if (p.runId !== runId.value) return
      const totals = new Map([...liveInt.value.totals].map(([k, t]) => [k, { ...t }]))
      addPointStats(totals, p.stats)
      publishLive(new Map(liveInt.value.defs), totals)
      // Unnamed series (this window joined after their 'run.series'): asked for until named.
      if (p.stats.some((s) => !liveInt.value.defs.has(s.seriesId))) void fetchDefs(p.runId)
    })
    on('run.event', (p) => {
      const e = events.value
      if (p.runId !== runId.value || p.event.kind !== 'int.report' || e.runId !== p.runId || !e.value) return
      const last = e.value[e.value.length - 1]
      if (last && last.id >= p.event.id) return // already fetched
      events.value = { ...e, value: markRaw([...e.value.slice(-(EVENTS_KEPT - 1)), p.event]) }
    })
  }

  function selectSwitch(name: string): void {
    selection.value = { kind: 'switch', name }
  }
  function selectLink(link: string): void {
    selection.value = { kind: 'link', link }
  }
  function selectPort(port: string): void {
    selection.value = { kind: 'port', port }
  }

  return {
    tab,
    mode,
    windowMs,
    cursorMs,
    selection,
    instantMs,
    runId,
    fabric,
    flows,
    events,
    liveInt,
    setRun,
    subscribe,
    needFlows,
    needEvents,
    selectSwitch,
    selectLink,
    selectPort,
  }
})
