// What crosses the contract as a SeriesBatch: NaN (no sample) becomes null, the one form that
// survives JSON (the WebSocket bridge) and passes the contract's check on either transport.

export interface WireBatch {
  t: number[]
  values: Array<Array<number | null>>
}

/** The batch with every NaN value replaced by null; columns without a NaN are passed as they are. */
export function toWireBatch(batch: { t: number[]; values: number[][] }): WireBatch {
  return {
    t: batch.t,
    values: batch.values.map((col) => (col.some((v) => Number.isNaN(v)) ? col.map((v) => (Number.isNaN(v) ? null : v)) : col)),
  }
}
