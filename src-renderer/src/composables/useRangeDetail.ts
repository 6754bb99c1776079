// A zoomed chart of a long stored run. Such a run arrives as an overview of roll-up bucket
// means (stores/telemetry.ts, STORED_MAX_VALUES); once the zoomed range settles, it is read
// again from the store at the finest level that fits, a little wider than the view so a small
// pan needs no new read. The chart draws that read while it covers the view.
import { ref } from 'vue'
import type { Level, RangeRead } from '../stores/telemetry'
import type { XRange } from './useChartZoom'

/** Wait this long after the last zoom or pan step before reading. */
const SETTLE_MS = 150
/** A read is widened by this share of the view's span on each side. */
const MARGIN = 0.5

interface Held extends RangeRead {
  runId: number
  fromMs: number
  toMs: number
}

interface Span {
  runId: number
  fromMs: number
  toMs: number
}

export function useRangeDetail(opts: {
  read: (runId: number, fromMs: number, toMs: number) => Promise<RangeRead>
  /** A read arrived: redraw. */
  changed: () => void
}) {
  let held: Held | null = null
  /** The range being waited for (timer or request), so each render does not ask again. */
  let wanted: Span | null = null
  /** The range whose read failed: not asked again while the view stays inside it. */
  let failed: Span | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  let ticket = 0
  const error = ref<string | null>(null)

  /** A read that covers the view and is fine enough for it (raw, or a span at most 4× the view's). */
  function serves(r: Span & { level?: Level }, runId: number, view: XRange): boolean {
    if (r.runId !== runId || r.fromMs > view.min || r.toMs < view.max) return false
    return r.level === 'raw' || (view.max - view.min) * 4 >= r.toMs - r.fromMs
  }

  function drop(): void {
    if (timer) clearTimeout(timer)
    timer = null
    wanted = null
    failed = null
    held = null
    ticket++
    error.value = null
  }

  function ask(runId: number, view: XRange): void {
    if (timer) clearTimeout(timer)
    const margin = (view.max - view.min) * MARGIN
    // Not clamped at 0: a view panned before the run's start must still be covered.
    const span: Span = { runId, fromMs: view.min - margin, toMs: view.max + margin }
    wanted = span
    const mine = ++ticket
    timer = setTimeout(() => {
      timer = null
      opts
        .read(span.runId, span.fromMs, span.toMs)
        .then((r) => {
          if (mine !== ticket) return
          held = { ...r, ...span }
          wanted = null
          failed = null
          error.value = null
          opts.changed()
        })
        .catch((err: unknown) => {
          if (mine !== ticket) return
          wanted = null
          failed = span
          error.value = err instanceof Error ? err.message : String(err)
          opts.changed()
        })
    }, SETTLE_MS)
  }

  /**
   * What to draw for this view: a read that covers it, or null (the overview). Asks for a
   * finer read when the one held does not serve the view. Raw overviews and unzoomed charts
   * need none, and drop what is held.
   */
  function forView(runId: number | null, level: Level, view: XRange | null): RangeRead | null {
    if (runId === null || level === 'raw' || view === null) {
      if (held || wanted) drop()
      return null
    }
    const h = held
    const within = (r: Span | null) => r !== null && serves({ ...r, level: 'raw' }, runId, view)
    if (!(h && serves(h, runId, view)) && !within(wanted) && !within(failed)) ask(runId, view)
    return h && h.runId === runId && h.fromMs <= view.min && h.toMs >= view.max ? h : null
  }

  return { forView, drop, error }
}
