// The control-plane module: compute a fabric's forwarding state once, render it three ways.
export * from '../../model/controlplane/types'
export { DEFAULT_PARAMS } from './defaults'
export { computeControlPlane, switchOf, type ComputeOptions } from './compute'
export { probeReplication, type ProbeRule, type SpineScope, type ReplicationPlan } from '../../model/controlplane/replication'
export { bmv2QueueMapping, ceilingScale, fastestQueueBps, type Bmv2QueueMapping, type Bmv2PortQueue, type Bmv2QueueOptions } from '../../model/controlplane/queues'
export { renderCli, cliCommandLines, cliEntry, type CliOptions } from './render/cli'
export { renderBfrt, bfrtEntry, bfSpeed, type BfrtOptions } from './render/bfrt'
export { renderSimRoutes } from './render/sim'
export { schemeModule, programFor } from './program'
export type { P4Iface, RenderedProgram, SchemeModule } from '../../model/controlplane/module'
export { ipToInt, macToInt, hostMac, switchPortMac } from '../../model/controlplane/address'
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
