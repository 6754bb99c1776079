// The agent's files on a host: p4lab_agent.py (AGENT_FILE, the one that runs) and the modules it
// imports from its own folder. Every upload of the agent copies all of them into the run directory.
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AGENT_FILE } from './agent-argv'

export const AGENT_MODULES = ['p4lab_agent_common.py', 'p4lab_agent_workload.py', 'p4lab_agent_flows.py', 'p4lab_agent_raw.py'] as const

/** Copies the agent (`agentFile`: resources/agent/p4lab_agent.py) and its modules beside it into the local folder `dir`. */
export function copyAgent(agentFile: string, dir: string): void {
  copyFileSync(agentFile, join(dir, AGENT_FILE))
  for (const m of AGENT_MODULES) copyFileSync(join(dirname(agentFile), m), join(dir, m))
}
