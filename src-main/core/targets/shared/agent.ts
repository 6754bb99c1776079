// The traffic agent (resources/agent/p4lab_agent.py) seen from p4lab: the argv of each of
// its modes (for ssh `cmd()` or a local spawn) and the parser of its JSON lines into the
// flow columns the store takes (`insertFlows`) and a target returns (`SimFlows`); likewise
// iperf3, the alternative generator for throughput runs.
//
//   agent-argv.ts      command lines (agent server, client, probe; iperf3 server, client)
//   agent-output.ts    the agent's JSON lines → flows (the format is described there)
//   agent-files.ts     the agent's files, copied into a run directory
//   iperf3-output.ts   `iperf3 -c … -J` → throughput

export {
  AGENT_FILE,
  agentClientArgv,
  agentProbeArgv,
  agentRelayArgv,
  agentServerArgv,
  iperf3ClientArgv,
  iperf3ServerArgv,
  type AgentAddress,
  type AgentClientOptions,
  type AgentLocation,
  type AgentProbeOptions,
  type AgentWorkload,
  type IncastAgentWorkload,
  type LongLivedAgentWorkload,
  type PoissonAgentWorkload,
} from './agent-argv'
export {
  AgentLineError,
  AgentOutputCollector,
  addressHost,
  parseAgentLine,
  parseAgentOutput,
  type AgentFlowLine,
  type AgentFlows,
  type AgentOutput,
  type AgentSummary,
  type CollectOptions,
} from './agent-output'
export { AGENT_MODULES, copyAgent } from './agent-files'
export { parseIperf3Json, type Iperf3Result } from './iperf3-output'
