import { defineStore } from 'pinia'
import { markRaw, shallowRef } from 'vue'
import { call, errorMessage, on } from '../client'
import { RunSeries, STORED_MAX_VALUES, type BatchLike } from '../lib/series'

/** Where a run's samples came from: the live stream, or runs.series after the fact. */
type Source = 'live' | 'stored'

/** 'raw' samples, or roll-up bucket means of this width (ns): a long stored run's overview. */
export type Level = 'raw' | number

interface Buffer {
  runId: number
  source: Source
  series: RunSeries | null
  level: Level
  /** Live batches that arrive while the stored history is being fetched. */
  pending: BatchLike[]
  error: string | null
  lastUsed: number
}

/** What the charts read: replaced (never mutated) at most once per animation frame. */
export interface ShownTelemetry {
  runId: number | null
  series: RunSeries | null
  level: Level
  loading: boolean
  error: string | null
  points: number
}

/** A part of a stored run read again at a finer level (a zoomed chart of a long run). */
export interface RangeRead {
  series: RunSeries
  level: Level
}

const MAX_BUFFERS = 6
const EMPTY: ShownTelemetry = { runId: null, series: null, level: 'raw', loading: false, error: null, points: 0 }

/**
 * Telemetry of runs. Samples live in typed arrays in plain (non-reactive) buffers; the only
 * reactive thing is `shown`, a snapshot for the run on screen, published once per frame.
 */
export const useTelemetryStore = defineStore('telemetry', () => {
  const buffers = new Map<number, Buffer>()
  const shown = shallowRef<ShownTelemetry>(EMPTY)
  let shownRunId: number | null = null
  let frame = 0

  function publish(): void {
    frame = 0
    const buf = shownRunId === null ? undefined : buffers.get(shownRunId)
    shown.value = {
      runId: shownRunId,
      series: buf?.series ?? null,
      level: buf?.level ?? 'raw',
      loading: buf !== undefined && buf.series === null && buf.error === null,
      error: buf?.error ?? null,
      points: buf?.series?.length ?? 0,
    }
  }

  function schedulePublish(runId: number): void {
    if (runId !== shownRunId || frame !== 0) return
    frame = requestAnimationFrame(publish)
  }

  function put(buf: Buffer): void {
    buffers.set(buf.runId, buf)
    if (buffers.size <= MAX_BUFFERS) return
    const evictable = [...buffers.values()].filter((b) => b.runId !== shownRunId && b.series !== null)
    evictable.sort((a, b) => a.lastUsed - b.lastUsed)
    for (const b of evictable.slice(0, buffers.size - MAX_BUFFERS)) buffers.delete(b.runId)
  }

  async function fetchStored(runId: number, source: Source): Promise<void> {
    const buf: Buffer = { runId, source, series: null, level: 'raw', pending: [], error: null, lastUsed: Date.now() }
    put(buf)
    schedulePublish(runId)
    try {
      // A live run's history stays raw: the stream appends raw samples after it.
      const res = await call('runs.series', source === 'stored' ? { id: runId, maxValues: STORED_MAX_VALUES } : { id: runId })
      if (buffers.get(runId) !== buf) return // a run.series event started a fresh live buffer
      const series = markRaw(new RunSeries(res.defs))
      series.append(res.batch)
      for (const b of buf.pending) series.append(b)
      buf.pending = []
      buf.series = series
      buf.level = res.level
    } catch (err) {
      buf.error = errorMessage(err)
    }
    schedulePublish(runId)
  }

  /**
   * Puts a run on the charts. An active run shows its history so far, then the stream; a
   * finished one its stored series. `reload` (a click on a finished run) swaps what streamed
   * live for the stored series, which is complete even if this window joined late.
   */
  function show(runId: number | null, opts: { active: boolean; reload?: boolean }): void {
    shownRunId = runId
    if (runId !== null) {
      const buf = buffers.get(runId)
      if (buf) buf.lastUsed = Date.now()
      const stale = !buf || buf.error !== null || (opts.reload === true && !opts.active && buf.source === 'live')
      if (stale) void fetchStored(runId, opts.active ? 'live' : 'stored')
    }
    if (frame !== 0) cancelAnimationFrame(frame)
    frame = 0
    publish()
  }

  let subscribed = false
  function subscribe(): void {
    if (subscribed) return
    subscribed = true
    on('run.series', (p) => {
      const existing = buffers.get(p.runId)
      if (existing?.series && existing.series.length > 0) return
      put({
        runId: p.runId,
        source: 'live',
        series: markRaw(new RunSeries(p.defs)),
        level: 'raw',
        pending: [],
        error: null,
        lastUsed: Date.now(),
      })
      schedulePublish(p.runId)
    })
    on('run.telemetry', (p) => {
      const buf = buffers.get(p.runId)
      if (!buf) {
        // Joined mid-run (a reload, a second window): fetch what was stored so far.
        if (p.runId === shownRunId) {
          void fetchStored(p.runId, 'live')
          buffers.get(p.runId)?.pending.push(p.batch)
        }
        return
      }
      if (buf.series) buf.series.append(p.batch)
      else buf.pending.push(p.batch)
      schedulePublish(p.runId)
    })
  }

  /**
   * A stored run's samples over [fromMs, toMs] (sim ms), at the finest level within the same
   * budget: what a zoomed chart draws when the run's overview is a roll-up. Not kept here.
   */
  async function readRange(runId: number, fromMs: number, toMs: number): Promise<RangeRead> {
    const res = await call('runs.series', { id: runId, fromNs: Math.floor(fromMs * 1e6), toNs: Math.ceil(toMs * 1e6), maxValues: STORED_MAX_VALUES })
    const series = markRaw(new RunSeries(res.defs))
    series.append(res.batch)
    return { series, level: res.level }
  }

  return { shown, show, subscribe, readRange }
})
