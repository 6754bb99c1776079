// A run none of whose flows finish (issue 11, "an honest status"): the simulator given 200
// web-search flows and 1 ms of simulated time. Nothing may show it as a plain `done`: not the
// built CLI (run, show, list, compare, --resume, --rerun-failed), not the contract's answers
// (runs.get, sweeps.matrix, compare.query), not the exported archive (README, runs.csv,
// manifest, compare). Real SQLite, the real simulator worker, the real tar.gz.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x as extractTar } from 'tar'
import { beforeAll, describe, expect, it } from 'vitest'
import { methods } from '../../src-main/contract'
import { createNodeCore } from '../../src-main/core'
import { p4lab } from '../helpers/cli'

const YAML = `name: cannot-finish
description: more flows than 1 ms of simulated time can carry
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3], flows: 200 }
seeds: [1]
stopAfter: 1ms
`
const NOT_DONE = /arrivals outran the simulated time: \d+ flows were due to start after the simulation stopped at 1\.00 ms/

describe('a run whose flows do not finish is incomplete everywhere', () => {
  let dir: string
  let first: ReturnType<typeof p4lab>
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-incomplete-'))
    writeFileSync(join(dir, 'cannot-finish.yaml'), YAML)
    first = p4lab(['run', 'cannot-finish.yaml', '--db', 'x.db'], dir)
  }, 180_000)

  it('p4lab run: exits 1, prints incomplete with the numbers and the cause, never done', () => {
    expect(first.code, first.stderr).toBe(1)
    expect(first.stderr).toMatch(/run 1 ecmp load=0\.3 seed=1: incomplete \(\d+ of 200 flows finished/)
    const rows = first.stdout.split('\n').filter((l) => /^\s*[12]\s/.test(l))
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row).toMatch(/\bincomplete\b/)
      expect(row).not.toMatch(/\bdone\b/)
    }
    expect(first.stdout).toMatch(/run 1 is incomplete: \d+ of 200 flows finished \(0 failed, \d+ unfinished\); a run is done when at least 99 % finish\. Likely cause: arrivals outran/)
    expect(first.stdout).toMatch(NOT_DONE)
  })

  it('p4lab show and list: the status, the numbers and the cause, as text and JSON', () => {
    const show = p4lab(['show', '1', '--db', 'x.db'], dir)
    expect(show.code).toBe(0)
    expect(show.stdout).toMatch(/^status {4}incomplete: \d+ of 200 flows finished/m)
    expect(show.stdout).toMatch(/^flows {5}\d+ of 200 flows finished \(0 failed, \d+ unfinished\); done needs 99 %$/m)
    // The unfinished flows as a count and a share of all the flows, never just dropped.
    const unfinished = Number(/^ {10}(\d+) unfinished \((\d+\.\d\d) % of the flows\), left out of the FCT statistics$/m.exec(show.stdout)?.[1])
    expect(unfinished).toBeGreaterThan(0)
    expect(show.stdout).toContain(`${unfinished} unfinished (${((100 * unfinished) / 200).toFixed(2)} % of the flows)`)
    expect(show.stdout).toMatch(NOT_DONE)
    const json = JSON.parse(p4lab(['show', '1', '--db', 'x.db', '--json'], dir).stdout)
    expect(json.status).toBe('incomplete')
    expect(json.completion).toMatchObject({ flows: 200, failed: 0, complete: false })
    expect(json.completion.finished + json.completion.unfinished).toBe(200)
    expect(json.completion.cause).toMatch(NOT_DONE)

    const list = p4lab(['list', '--db', 'x.db'], dir)
    expect(list.stdout).toMatch(/run 1 is incomplete: /)
    expect(list.stdout).toMatch(/run 2 is incomplete: /)
    expect(list.stdout).not.toMatch(/\bdone\b(?! when)/)
    const listed = JSON.parse(p4lab(['list', '--db', 'x.db', '--json'], dir).stdout)
    expect(listed[0].runs.map((r: { status: string }) => r.status)).toEqual(['incomplete', 'incomplete'])
  })

  it('p4lab compare leaves them out and says why; --resume leaves them alone; --rerun-failed runs them again', () => {
    const cmp = p4lab(['compare', 'cannot-finish', '--db', 'x.db'], dir)
    expect(cmp.code).toBe(0)
    expect(cmp.stdout).toMatch(/left out as incomplete \(fewer than 99 % of their flows finished\):/)
    expect(cmp.stdout).toMatch(/^ {2}ecmp load 0\.3 seed 1: \d+ of 200 flows finished \(0 failed, \d+ unfinished\); likely cause: arrivals outran/m)
    expect(cmp.stdout).toMatch(/^ {2}rps load 0\.3 seed 1: /m)
    const resume = p4lab(['run', 'cannot-finish.yaml', '--db', 'x.db', '--resume'], dir)
    expect(resume.stderr).toMatch(/resuming: 0 of 2 cell\(s\) already done, 2 incomplete left alone \(--rerun-failed runs them again\), 0 to run/)
  })

  it('the contract says incomplete: runs.get, sweeps.matrix and compare.query', async () => {
    const core = createNodeCore({ dbPath: join(dir, 'x.db'), baseDir: dir, parallelRuns: 1 })
    try {
      const run = methods['runs.get'].res.parse(await core.handlers['runs.get']({ id: 1 }))
      expect(run.status).toBe('incomplete')
      expect(run.completion).toMatchObject({ flows: 200, complete: false })
      expect(run.error).toMatch(NOT_DONE)
      const m = methods['sweeps.matrix'].res.parse(await core.handlers['sweeps.matrix']({ experimentId: 1 }))
      expect(m.cells.map((c) => [c.status, c.doneRunId, c.completion?.complete])).toEqual([
        ['incomplete', null, false],
        ['incomplete', null, false],
      ])
      expect(m.counts.incomplete).toBe(2)
      expect(m.counts.done).toBe(0)
      const q = methods['compare.query'].res.parse(await core.handlers['compare.query']({ experimentIds: [1] }))
      expect(q.rows).toEqual([])
      expect(q.incomplete.map((c) => [c.scheme, c.flows, c.failed])).toEqual([['ecmp', 200, 0], ['rps', 200, 0]])
    } finally {
      core.opts.store.close()
    }
  })

  it('the archive: README, runs.csv, manifest and compare say incomplete, with the numbers and the cause', async () => {
    mkdirSync(join(dir, 'out')) // export creates no folders
    const exp = p4lab(['export', 'cannot-finish', '--db', 'x.db', '-o', 'out/a.tar.gz'], dir)
    expect(exp.code, exp.stderr).toBe(0)
    const x = join(dir, 'x')
    mkdirSync(x)
    await extractTar({ file: join(dir, 'out', 'a.tar.gz'), cwd: x })
    const readme = readFileSync(join(x, 'README.md'), 'utf8')
    expect(readme).toMatch(/- Runs: 2 \(2 incomplete\)/)
    expect(readme).toMatch(/\| ecmp \| 0\.3 \| 1 \| sim \| incomplete \| \d+\/200 \|/)
    expect(readme).toMatch(/### Incomplete runs\n\n- ecmp, load 0\.3, seed 1 on sim \(run 1\): \d+ of 200 flows finished \(0 failed, \d+ unfinished\)\. Likely cause: arrivals outran/)
    const csv = readFileSync(join(x, 'data', 'runs.csv'), 'utf8').split('\r\n')
    const head = csv[0].split(',')
    const row = csv[1]
    expect(head.slice(8, 9)).toEqual(['status'])
    expect(head).toEqual(expect.arrayContaining(['flows', 'finished', 'failed_flows', 'unfinished_flows', 'incomplete_cause']))
    expect(row).toMatch(/,incomplete,/)
    expect(row).toMatch(/,200,\d+,0,\d+,"?arrivals outran the simulated time/)
    const manifest = JSON.parse(readFileSync(join(x, 'manifest.json'), 'utf8'))
    expect(manifest.statuses).toEqual({ incomplete: 2 })
    expect(manifest.notes.join('\n')).toMatch(/run 1 \(ecmp, load 0\.3, seed 1\) is incomplete: \d+ of 200 flows finished/)
    expect(readFileSync(join(x, 'compare', 'mean-by-load.txt'), 'utf8')).toMatch(/left out as incomplete/)
  })

  it('--rerun-failed runs the incomplete cells again (the same, since the simulator is deterministic)', () => {
    const again = p4lab(['run', 'cannot-finish.yaml', '--db', 'x.db', '--rerun-failed'], dir)
    expect(again.stderr).toMatch(/re-running 2 failed, incomplete, cancelled, interrupted or held cell\(s\) of 2/)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/run 3 ecmp load=0\.3 seed=1: incomplete/)
  }, 120_000)
})
