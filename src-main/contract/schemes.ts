import { z } from 'zod'

// ---- What a load-balancing scheme declares about itself, as plain data. ----
// The scheme descriptors (src-main/schemes/<name>/index.ts) are typed by these shapes
// (src-main/model/scheme.ts takes its types from here), and 'schemes.list' sends them to the UI,
// which builds its switch tables, labels and parameter help from them and names no scheme itself.

/** How a parameter is written in `params:` and what it is passed as (base units). */
export const ParamUnit = z.enum(['duration', 'size', 'rate', 'number', 'fraction', 'count', 'flag'])
export type ParamUnit = z.infer<typeof ParamUnit>

export const PaperRef = z.object({
  title: z.string(),
  /** Absent where the paper's own copy does not give one. */
  venue: z.string().optional(),
})
export type PaperRef = z.infer<typeof PaperRef>

/** How a table cell shows a value: a port also shows the neighbour behind it; a negative port is "no hop yet". */
export const TableFormat = z.enum(['port', 'ratio', 'level', 'bytes', 'packets', 'number'])
export type TableFormat = z.infer<typeof TableFormat>

const TableCommon = {
  /** Shown after the scheme's label: "HULA best hop". */
  title: z.string(),
  /** A few words under the title (what a row or a cell is). */
  note: z.string().optional(),
  /** The entity key naming the switch that holds the table. */
  switchKey: z.string(),
  /** The entity key a row is per (a destination). */
  rowKey: z.string(),
  /** The row keys' column heading (default: rowKey). */
  rowLabel: z.string().optional(),
}

/**
 * A switch table the UI shows for a scheme, built from its series at the cursor:
 * `per-destination` puts one row per value of `rowKey` with a column per kind;
 * `matrix` lays one kind out as rows × columns of two entity keys and marks each row's best
 * cell (the lowest when `lowIsBest`, else the highest; a negative value is "not set yet").
 */
export const SwitchTableSpec = z.discriminatedUnion('layout', [
  z.object({
    layout: z.literal('per-destination'),
    ...TableCommon,
    columns: z.array(z.object({ kind: z.string(), label: z.string(), format: TableFormat })).min(1),
  }),
  z.object({
    layout: z.literal('matrix'),
    ...TableCommon,
    kind: z.string(),
    colKey: z.string(),
    /** Put before each column's key in its heading ("uplink 0"); default: colKey. */
    colLabel: z.string().optional(),
    lowIsBest: z.boolean(),
  }),
])
export type SwitchTableSpec = z.infer<typeof SwitchTableSpec>

/** A parameter a scheme reads, as the experiment file writes it under `params:`. */
export const SchemeParam = z.object({
  /** The key written in `params:` (flowletGap). */
  key: z.string(),
  /** The name it is passed under, in base units (flowletGapNs). */
  name: z.string(),
  unit: ParamUnit,
  /** In base units (ns, bytes, bit/s; 1/0 for a flag); null: the scheme derives it (doc says how). */
  default: z.number().nullable(),
  /** The default as an experiment file writes it (100us, 64B, 10Gbps, true); null with default. */
  defaultText: z.string().nullable(),
  doc: z.string(),
  /** Every scheme that reads this key, this one included. */
  schemes: z.array(z.string()),
})
export type SchemeParam = z.infer<typeof SchemeParam>

/** A telemetry series kind a scheme emits. */
export const SchemeSeriesKind = z.object({
  kind: z.string(),
  /** The entity's keys, in the order they are written. */
  entity: z.array(z.string()),
  units: z.array(z.string()),
  what: z.string(),
  categorical: z.boolean(),
  fabricWide: z.boolean(),
})
export type SchemeSeriesKind = z.infer<typeof SchemeSeriesKind>

/** A scheme as 'schemes.list' gives it. */
export const Scheme = z.object({
  /** The name experiment files use. */
  name: z.string(),
  /** How the UI and docs write it (CONGA′). */
  label: z.string(),
  summary: z.string(),
  paper: PaperRef.nullable(),
  params: z.array(SchemeParam),
  series: z.array(SchemeSeriesKind),
  tables: z.array(SwitchTableSpec),
  /** The name of its P4 programs (as in 'pipelines.list'), when it has any. */
  p4Program: z.string().nullable(),
  /** The probe or credit frame it sends, in words, when it has one. */
  probes: z.string().nullable(),
})
export type Scheme = z.infer<typeof Scheme>
