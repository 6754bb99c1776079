// Entry point of `npm run bench`: each benchmark file through the project's TypeScript
// runner, in turn. `npm run bench -- FILE.ts [args]` runs one (relative to bench/).
import { join } from 'node:path'
import { root, runTs } from '../scripts/run-ts.mjs'

// ui-frame.ts before fig5a.ts: the sweep's worker threads would share the CPU with the browser.
// slurm.ts last: it starts a one-node cluster on this machine, or says why it cannot.
const ALL = ['sim.ts', 'ingest.ts', 'ui-frame.ts', 'fig5a.ts', 'slurm.ts']
const chosen = process.argv[2] ? [process.argv[2]] : ALL
for (const file of chosen) await runTs(join(root, 'bench', file), process.argv.slice(3))
