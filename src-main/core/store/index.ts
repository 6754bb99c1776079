export { openStore, Store, type OpenStoreOptions } from './store'
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations'
export type { FlowColumns } from './flows'
export type { EventRow, ExperimentRow, ExperimentSummaryRow, FlowRow, RunRow, SeriesRow } from './rows'
