// An archive's README describes the experiment's current text; runs of an earlier text are
// said to be so, with the revision each ran, instead of reading as runs of the text above.
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { archiveReadme } from '../../src-main/core/archive/readme'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment } from '../../src-main/core/spec'
import type { RunRow } from '../../src-main/core/store'

const YAML = `name: edited
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 300 }
seeds: [1]
`

function spec() {
  const parsed = parseExperiment(YAML, { file: 'x.yaml', baseDir: tmpdir(), workloadsDir: workloadsDir() })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  return parsed.spec
}

function run(id: number, revision: number, stale: boolean, flows: number): RunRow {
  return {
    id, experimentId: 1, experimentName: 'edited', target: 'sim', scheme: 'ecmp', load: 0.3, seed: 1, params: {}, status: 'done',
    createdAt: '', startedAt: null, finishedAt: null, error: null,
    stats: { flows, finished: flows, meanNs: 2e6, p50Ns: 1e6, p99Ns: 9e6, smallMeanNs: null, largeMeanNs: null },
    counters: {}, facts: {}, completion: null, owner: 'x', revision, stale, tags: [], notes: '', archivedAt: null, deletedAt: null,
  }
}

const HEAD = { format: 1, p4labVersion: '0', createdAt: 'now', experiment: { name: 'edited', runs: 2, schemes: ['ecmp'], loads: [0.3], seeds: [1], targets: ['sim'] }, tools: {}, targets: {}, notes: [] }

describe('archive README', () => {
  it('names the runs of an earlier text and the revision of each', () => {
    const text = archiveReadme(HEAD as never, spec(), [run(1, 1, true, 600), run(2, 2, false, 300)], null, [], [])
    expect(text).toContain('- Runs: 2 (2 done); 1 of them (run 1) is stale: it ran with an earlier text or on another testbed than the one above (what each ran with: `runs/run-<id>.json`; the texts: `experiment/revisions/`)')
    expect(text).toContain('| scheme | load | seed | revision | target | status | flows finished | mean FCT | p99 FCT |')
    expect(text).toContain('| ecmp | 0.3 | 1 | 1 (stale) | sim | done | 600/600 | 2 ms | 9 ms |')
    expect(text).toContain('| ecmp | 0.3 | 1 | 2 | sim | done | 300/300 | 2 ms | 9 ms |')
  })

  it('keeps the table as it was when every run ran with the current text', () => {
    const text = archiveReadme(HEAD as never, spec(), [run(2, 2, false, 300)], null, [], [])
    expect(text).toContain('- Runs: 1 (1 done)\n')
    expect(text).toContain('| scheme | load | seed | target | status | flows finished | mean FCT | p99 FCT |')
  })
})
