// A chart's x range under the pointer: drag to zoom (uPlot's selection), wheel to zoom at the
// pointer, shift-drag, middle-drag or shift-wheel (or a horizontal wheel) to pan, double-click
// to reset, and a click without a drag to pick the instant under the pointer.
import { computed, shallowRef, watch, type ShallowRef } from 'vue'
import type uPlot from 'uplot'

export interface XRange {
  min: number
  max: number
}

/** The x range of each group of charts that zoom together. */
const groups = new Map<string, ShallowRef<XRange | null>>()

export function useChartZoom(opts: {
  /**
   * Charts of one group share their x range: zooming or panning one (stacked charts over the
   * same sim time) zooms them all. Each redraws when the range changes.
   */
  group?: string
  /** The chart's plot, while it has one. */
  plot: () => uPlot | null
  /** Called after the range changed: redraw. */
  changed: () => void
  /** A click picked this instant (x value). */
  pick: (x: number) => void
}) {
  /** The zoomed x range; null follows all the data. */
  let view: ShallowRef<XRange | null>
  if (opts.group === undefined) view = shallowRef<XRange | null>(null)
  else {
    if (!groups.has(opts.group)) groups.set(opts.group, shallowRef<XRange | null>(null))
    view = groups.get(opts.group)!
  }
  const zoomed = computed(() => view.value !== null)
  // Another chart of the group moved the range: draw it here too.
  let own = false
  if (opts.group !== undefined) {
    watch(view, () => {
      if (!own) opts.changed()
    })
  }

  /** Shows `v` (null: all the data) and redraws. */
  function setView(v: XRange | null): void {
    own = true
    clear(v)
    opts.changed()
    own = false
  }

  /** Sets the range without redrawing (the caller draws next). */
  function clear(v: XRange | null = null): void {
    view.value = v
  }

  function currentRange(): XRange | null {
    const plot = opts.plot()
    if (!plot) return null
    const { min, max } = plot.scales.x
    return min === undefined || max === undefined || min === null || max === null ? null : { min, max }
  }

  /** uPlot's setSelect hook: a drag selected an x range. */
  function onSelect(u: uPlot): void {
    const { left, width } = u.select
    if (width < 3) return
    const min = u.posToVal(left, 'x')
    const max = u.posToVal(left + width, 'x')
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
    if (max > min) setView({ min, max })
  }

  /** Binds the pointer to a new plot; unbound when the plot is destroyed. */
  function bindPointer(u: uPlot): void {
    const over = u.over
    let downX: number | null = null
    let pan: { x: number; range: XRange } | null = null
    over.addEventListener(
      'mousedown',
      (e) => {
        downX = e.clientX
        if (e.shiftKey || e.button === 1) {
          const range = currentRange()
          if (range) pan = { x: e.clientX, range }
          e.stopPropagation()
          e.preventDefault()
        }
      },
      true,
    )
    const onMove = (e: MouseEvent) => {
      const plot = opts.plot()
      if (!pan || !plot) return
      const perPx = ((pan.range.max - pan.range.min) / plot.bbox.width) * devicePixelRatio
      const dx = (e.clientX - pan.x) * perPx
      setView({ min: pan.range.min - dx, max: pan.range.max - dx })
    }
    const onUp = (e: MouseEvent) => {
      const wasPan = pan !== null
      pan = null
      const plot = opts.plot()
      if (downX !== null && !wasPan && Math.abs(e.clientX - downX) < 3 && plot && e.target === over) {
        const rect = over.getBoundingClientRect()
        opts.pick(plot.posToVal(e.clientX - rect.left, 'x'))
      }
      downX = null
    }
    window.addEventListener('mousemove', onMove)
    window.addEventListener('mouseup', onUp)
    over.addEventListener(
      'wheel',
      (e) => {
        const range = currentRange()
        const plot = opts.plot()
        if (!range || !plot) return
        e.preventDefault()
        const span = range.max - range.min
        if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          const d = (e.shiftKey ? e.deltaY : e.deltaX) > 0 ? span * 0.1 : -span * 0.1
          setView({ min: range.min + d, max: range.max + d })
          return
        }
        const rect = over.getBoundingClientRect()
        const at = plot.posToVal(e.clientX - rect.left, 'x')
        const f = e.deltaY > 0 ? 1.25 : 0.8
        setView({ min: at - (at - range.min) * f, max: at + (range.max - at) * f })
      },
      { passive: false },
    )
    over.addEventListener('dblclick', () => setView(null))
    const cleanup = () => {
      window.removeEventListener('mousemove', onMove)
      window.removeEventListener('mouseup', onUp)
    }
    u.hooks.destroy = [...(u.hooks.destroy ?? []), cleanup]
  }

  return { zoomed, view: () => view.value, setView, clear, onSelect, bindPointer }
}
