// The simulator's public entry points. Nothing here (or below) imports Node modules, so
// the engine runs in a worker thread, a browser or a test alike; callers read files.

export { simulate } from './run'
export { loadCdf, cdfMean } from './workload/cdf'
export { computeRoutes } from './routing/routes'
export type { ForwardingStage, StageEnv, StageFactory } from './routing/stage'
export * from './types'
