export { expandRuns, formatSpecError, parseExperiment } from './parse'
export { SCHEMES, WORKLOAD_KINDS, type ExperimentSpec, type ParseOptions, type ParseResult, type WorkloadKind } from './types'
export { parseCdf, type CdfResult } from './workload'
