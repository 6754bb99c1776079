export { expandRuns, formatSpecError, parseExperiment } from './parse'
export { KNOWN_PARAMS } from '../../schemes'
export {
  CDF_KINDS,
  DEFAULT_FAN_IN,
  INT_WATCH,
  SCHEMES,
  TOPOLOGY_KINDS,
  WORKLOAD_KINDS,
  type CdfKind,
  type ExperimentSpec,
  type RunnerSpec,
  type FailureSpec,
  type IncastWorkloadSpec,
  type IntSpec,
  type IntWatch,
  type LongLivedWorkloadSpec,
  type ParseOptions,
  type ParseResult,
  type PermutationWorkloadSpec,
  type PoissonWorkloadSpec,
  type TopologyKind,
  type WorkloadKind,
  type WorkloadSpec,
} from './types'
export { parseCdf, type CdfResult } from './workload'
export { ADDRESS_PLAN, SPEC_LIMITS, yamlBytesProblem } from './limits'
