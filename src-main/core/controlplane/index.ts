// The control-plane module: compute a fabric's forwarding state once, render it three ways.
export * from './types'
export { computeControlPlane, switchOf, type ComputeOptions } from './compute'
export { probeReplication, type ProbeRule, type SpineScope, type ReplicationPlan } from './replication'
export { bmv2QueueMapping, ceilingScale, fastestQueueBps, type Bmv2QueueMapping, type Bmv2PortQueue, type Bmv2QueueOptions } from './queues'
export { renderCli, cliCommandLines, cliEntry, type CliOptions } from './render/cli'
export { renderBfrt, bfrtEntry, bfSpeed, type BfrtOptions } from './render/bfrt'
export { renderSimRoutes } from './render/sim'
export { schemeModule, programFor, type P4Iface, type RenderedProgram, type SchemeModule } from './schemes'
export { ipToInt, macToInt, hostMac, switchPortMac } from './address'
export {
  intCliCommands,
  intNodeNames,
  intPlan,
  intSwitchPlan,
  type IntOptions,
  type IntPlan,
  type IntSwitchPlan,
  type IntWatchPorts,
} from './int'
