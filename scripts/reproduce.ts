// `npm run reproduce [-- --quick] [--only NAME] [--db PATH] [--parallel N] [--out FILE]`: runs
// every paper template on the embedded fabric through the same core as the app, then writes
// docs/results.md (reproduce-run.ts): each claim with the paper's number, ours, ours over the
// paper's and whether it lands within ±30 %; each figure's order of schemes against the paper's;
// a sensitivity sweep over the settings the paper leaves open for every claim that misses; the
// figures as SVG in docs/figures/. --quick runs a quarter of the flows and one seed per
// template (and smaller sweeps); --only NAME re-runs one template and replaces its rows and
// section in the existing page.
import { availableParallelism } from 'node:os'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import { createNodeCore } from '../src-main/core'
import { packageRoot } from '../src-main/core/paths'
import { CLAIMS } from './reproduce-claims'
import { reproduce } from './reproduce-run'
import { SETTINGS } from './reproduce-settings'

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    db: { type: 'string' },
    parallel: { type: 'string' },
    out: { type: 'string' },
  },
})
const root = packageRoot()
const dbPath = values.db ?? join(mkdtempSync(join(tmpdir(), 'p4lab-reproduce-')), 'reproduce.db')
const parallelRuns = values.parallel ? Number(values.parallel) : availableParallelism()

async function main(): Promise<void> {
  const core = createNodeCore({ dbPath, parallelRuns })
  core.start()
  try {
    const { seconds } = await reproduce({
      core,
      templatesDir: join(root, 'resources', 'experiments'),
      claims: CLAIMS,
      settings: SETTINGS,
      quick: values.quick,
      only: values.only,
      outFile: values.out ?? join(root, 'docs', 'results.md'),
      parallelRuns,
      log: (line) => process.stderr.write(`${line}\n`),
    })
    process.stderr.write(`reproduce: total time ${(seconds / 60).toFixed(1)} min (database ${dbPath})\n`)
  } finally {
    core.opts.store.close()
  }
}

main().catch((err) => {
  process.stderr.write(`reproduce: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exitCode = 1
})
