export * from './types'
export { buildFabric } from './build'
export * from './query'
export * from './destinations'
