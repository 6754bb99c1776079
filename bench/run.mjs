// Entry point of `npm run bench`: each benchmark file through the project's TypeScript
// runner, in turn. `npm run bench -- FILE.ts [args]` runs one (relative to bench/).
import { join } from 'node:path'
import { root, runTs } from '../scripts/run-ts.mjs'

const ALL = ['sim.ts', 'fig5a.ts']
const chosen = process.argv[2] ? [process.argv[2]] : ALL
for (const file of chosen) await runTs(join(root, 'bench', file), process.argv.slice(3))
