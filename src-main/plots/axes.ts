// Axes as a figure needs them, shared by the uPlot charts and the SVG serializer: one unit per
// axis, chosen from its largest tick and named in the title ("mean FCT (ms)"), so ticks are
// plain numbers ("0", "2.5", "5") and never "0 ns" under milliseconds; decades on a log axis;
// and the line styles that keep more lines apart than a palette can.
import { formatNsShort, sig3 } from './format'

export type PlotUnit = 'ns' | 'ratio' | 'bps' | 'count' | 'probability' | 'packets' | 'plain'

/**
 * Ten colours for lines, distinct to readers with the common colour-vision deficiencies:
 * the sequence of M. A. Petroff, "Accessible Color Sequences for Data Visualization"
 * (arXiv:2107.02270, 2021), chosen by a model of deuteranopia, protanopia and tritanopia and
 * by a survey of readers.
 */
export const PALETTE = ['#3f90da', '#ffa90e', '#bd1f01', '#94a4a2', '#832db6', '#a96b59', '#e76300', '#b9ac70', '#717581', '#92dadd']

/** Dash patterns (CSS px on, off) for the lines after each full turn of the palette: solid first. */
export const DASHES: ReadonlyArray<readonly number[]> = [[], [6, 3], [2, 3], [8, 3, 2, 3]]

/** Colour and dash of the i-th line: the palette, then the palette again dashed. */
export function lineStyleAt(i: number): { color: string; dash: number[] } {
  return { color: PALETTE[i % PALETTE.length], dash: [...DASHES[Math.floor(i / PALETTE.length) % DASHES.length]] }
}

export interface AxisUnit {
  /** Tick values are divided by this. */
  div: number
  /** The unit for the title, '' for none. */
  name: string
}

const NS: Array<[number, string]> = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
]
const BPS: Array<[number, string]> = [
  [1e9, 'Gb/s'],
  [1e6, 'Mb/s'],
  [1e3, 'kb/s'],
  [1, 'b/s'],
]

/** The unit an axis shows its ticks in, from the largest absolute value on it. */
export function axisUnit(unit: PlotUnit, maxAbs: number): AxisUnit {
  const pick = (steps: Array<[number, string]>) => {
    for (const [div, name] of steps) if (maxAbs >= div) return { div, name }
    const [div, name] = steps[steps.length - 1]
    return { div, name }
  }
  switch (unit) {
    case 'ns':
      return pick(NS)
    case 'bps':
      return pick(BPS)
    case 'probability':
      return { div: 0.01, name: '%' }
    case 'packets':
      return { div: 1, name: 'packets' }
    default:
      return { div: 1, name: '' }
  }
}

/** "label (unit)", or the label alone when the axis has no unit or the label already names it. */
export function axisTitle(label: string, u: AxisUnit, log = false): string {
  const unit = u.name && !label.includes(`(${u.name})`) && !(u.name === 'packets' && /packets/.test(label)) ? ` (${u.name})` : ''
  return `${label}${unit}${log ? ', log scale' : ''}`
}

/** A tick in the axis's unit: a plain number with up to 3 significant digits. */
export function axisTick(v: number, u: AxisUnit): string {
  if (!Number.isFinite(v)) return ''
  const x = v / u.div
  return Math.abs(x) < 1e-9 ? '0' : String(Number(sig3(x)))
}

/**
 * A log axis's range for data in [min, max] (both > 0): the data with a little room, or whole
 * decades when the data would show fewer than two labelled decades.
 */
export function decadeRange(min: number, max: number): [number, number] {
  const pad = 1.1
  if (decades(min / pad, max * pad).length >= 2) return [min / pad, max * pad]
  const lo = 10 ** Math.floor(Math.log10(min))
  let hi = 10 ** Math.ceil(Math.log10(max))
  if (hi <= lo) hi = lo * 10
  return [lo, hi]
}

/** The powers of ten in [min, max]: the labelled ticks of a log axis. */
export function decades(min: number, max: number): number[] {
  const out: number[] = []
  for (let e = Math.ceil(Math.log10(min) - 1e-9); 10 ** e <= max * (1 + 1e-9); e++) out.push(10 ** e)
  return out
}

/** Whether a value is a power of ten (a labelled tick of a log axis). */
export function isDecade(v: number): boolean {
  if (!(v > 0)) return false
  const e = Math.log10(v)
  return Math.abs(e - Math.round(e)) < 1e-9
}

/** A log axis tick: its value in its own unit at decades ("10 µs", "1 ms"), '' between them. */
export function logTick(v: number, unit: PlotUnit): string {
  if (!isDecade(v)) return ''
  return unit === 'ns' ? formatNsShort(v) : String(Number(v.toPrecision(1)))
}
