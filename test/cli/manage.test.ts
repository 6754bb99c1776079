// `p4lab tag`, `note`, `rm`, `archive`, `restore`, `list --where` and `import` of an archive
// already here: the built bin on a real SQLite store, stdin a pipe (no terminal) as in scripts.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { processOwner } from '../../src-main/core/owner'
import { openStore } from '../../src-main/core/store'
import { p4lab } from '../helpers/cli'

const YAML = `name: cli-mng
tags: [paper]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3], flows: 20 }
seeds: [1]
`

let dir: string
let db: string
const cli = (...args: string[]) => p4lab([...args, '--db', db], dir)
const listed = () => (JSON.parse(cli('list', '--json').stdout) as Array<{ name: string; runs: Array<{ id: number }> }>).map((e) => [e.name, e.runs.map((r) => r.id)])

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-mng-'))
  db = join(dir, 'm.db')
  writeFileSync(join(dir, 'mng.yaml'), YAML)
  const r = cli('run', 'mng.yaml')
  expect(r.code, r.stderr).toBe(0)
}, 120_000)

describe('p4lab tag and note', () => {
  it('tags runs and experiments, keeps the YAML tags the text’s, and keeps notes', () => {
    expect(cli('tag', 'run', '1', 'fast', 'baseline').stdout).toBe('run 1: fast, baseline\n')
    expect(cli('tag', 'run', '1', '--remove', 'baseline').stdout).toBe('run 1: fast\n')
    const typo = cli('tag', 'run', '1', '--remove', 'fsat')
    expect([typo.code, typo.stdout, typo.stderr]).toEqual([0, 'run 1: fast\n', "p4lab: run 1 has no tag 'fsat': nothing to remove\n"])
    expect(cli('tag', 'experiment', 'cli-mng', 'mine').stdout).toBe('experiment 1: paper (YAML), mine\n')
    const fixed = cli('tag', 'experiment', 'cli-mng', '--remove', 'paper')
    expect(fixed.code).toBe(1)
    expect(fixed.stderr).toMatch(/tag paper of experiment 1 comes from its YAML \(tags:\); edit the text to remove it/)
    const bad = cli('tag', 'run', '1', "it's")
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/tag 'it's': a tag is one word/)
    expect(cli('note', 'run', '2', 'slow start').code).toBe(0)
    expect(cli('note', 'run', '2').stdout).toBe('slow start\n')
    expect(JSON.parse(cli('note', 'experiment', '1', '--json').stdout)).toEqual({ kind: 'experiments', id: 1, notes: '' })
  })

  it('finds them with list --where, across experiments, with the hints compare gives', () => {
    const r = cli('list', '--where', 'tag:fast', '--json')
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).map((e: { runs: Array<{ id: number }> }) => e.runs.map((x) => x.id))).toEqual([[1]])
    const typo = cli('list', '--where', 'schme = ecmp')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/--where: column 1: unknown field 'schme'[^\n]*\nschme = ecmp\n\^/)
    const none = cli('list', '--where', 'scheme = rsp')
    expect(none.code).toBe(1)
    expect(none.stderr).toContain("--where: no scheme 'rsp'; schemes in the runs searched: ecmp, rps")
  })
})

describe('control characters in a new name, tag or note', () => {
  it('are refused with exit 2, naming the character and where it is, and nothing changes', () => {
    const before = cli('list', '--json').stdout
    const cases: Array<[string[], RegExp]> = [
      [['rename', 'cli-mng', 'evil\u001b[2Jname'], /NEW 'evil\\u001b\[2Jname' holds the control character ESC \(U\+001B\) at position 5/],
      [['rename', 'cli-mng', 'a\u202eb'], /holds the control character U\+202E at position 2/],
      [['tag', 'run', '1', 'ding\u0007'], /a tag holds the control character U\+0007 at position 5/],
      [['note', 'run', '1', 'red\u001b[31m'], /TEXT holds the control character ESC \(U\+001B\) at position 4 .*line feeds and tabs are kept/],
    ]
    for (const [args, message] of cases) {
      const r = cli(...args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(message)
    }
    expect(cli('list', '--json').stdout).toBe(before)
    expect(cli('note', 'run', '1').stdout).not.toContain('red')
  })

  it('keeps line feeds and tabs in a note', () => {
    expect(cli('note', 'run', '2', 'line one\n\tline two').code).toBe(0)
    expect(cli('note', 'run', '2').stdout).toBe('line one\n\tline two\n')
  })
})

describe('a word too many', () => {
  it('is refused with exit 2 and named, not dropped (list, cluster list, slurm status)', () => {
    const cases: Array<[string[], string]> = [
      [['list', 'cli-mng'], "p4lab: list takes no arguments, got 'cli-mng' (to choose runs: --where QUERY"],
      [['cluster', 'list', 'mine'], "p4lab: cluster list: unexpected 'mine'"],
      [['slurm', 'status', '12', '13'], "p4lab: slurm status takes one JOBID, got '13' too"],
    ]
    for (const [args, message] of cases) {
      const r = cli(...args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout, args.join(' ')).toBe('')
      expect(r.stderr, args.join(' ')).toContain(message)
    }
  })
})

describe('p4lab rm, archive and restore', () => {
  it('asks first: without a terminal and without --yes it refuses and changes nothing', () => {
    const r = cli('rm', 'run', '1')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/nothing done: there is no terminal to confirm on \(stdin is not a TTY\); to move to the trash run 1 \(cli-mng: ecmp, load 0\.3, seed 1, done\), run again with --yes/)
    const a = cli('archive', 'experiment', 'cli-mng')
    expect(a.code).toBe(1)
    expect(a.stderr).toMatch(/run again with --yes/)
    expect(listed()).toEqual([['cli-mng', [1, 2]]])
  })

  it('moves a run to the trash with --yes, lists it there, restores it, and empties the trash only with --purge', () => {
    const r = cli('rm', 'run', '1', '--yes')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('moved to the trash: run 1; bring it back with p4lab restore run 1 (p4lab rm --purge empties the trash)\n')
    expect(listed()).toEqual([['cli-mng', [2]]])
    expect(cli('list').stdout).toMatch(/1 run\(s\) archived or in the trash/)
    const trash = cli('list', '--trash', '--json')
    expect(JSON.parse(trash.stdout)).toMatchObject([{ name: 'cli-mng', runs: [{ id: 1, setAside: 'deleted', tags: ['fast'] }] }])
    expect(cli('restore', 'run', '1').stdout).toBe('restored run 1\n')
    expect(listed()).toEqual([['cli-mng', [1, 2]]])

    expect(cli('rm', 'run', '2', '--yes').code).toBe(0)
    expect(cli('rm', '--purge').code).toBe(1)
    const purge = cli('rm', '--purge', '--yes')
    expect(purge.stdout).toBe('removed for good: 0 experiment(s) and 1 run(s) from the trash\n')
    expect(cli('restore', 'run', '2').stderr).toMatch(/run 2 does not exist/)
    expect(listed()).toEqual([['cli-mng', [1]]])
  })

  it('show says where a run set aside is and how to bring it back, with its tags and notes', () => {
    expect(cli('rm', 'run', '1', '--yes').code).toBe(0)
    const shown = cli('show', '1')
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(/\nstatus {4}done\nset aside in the trash: p4lab restore run 1 brings it back\n/)
    expect(shown.stdout).toMatch(/\ntags {6}fast\n/)
    expect(cli('restore', 'run', '1').code).toBe(0)
    expect(cli('note', 'run', '1', 'first line\nsecond line').code).toBe(0)
    expect(cli('archive', 'experiment', 'cli-mng', '--yes').code).toBe(0)
    const archived = cli('show', '1').stdout
    expect(archived).toMatch(/\nset aside archived with experiment 1: p4lab restore experiment 1 brings it back\n/)
    expect(archived).toMatch(/\nnotes {5}first line\n {10}second line\n/)
    expect(cli('restore', 'experiment', '1').code).toBe(0)
    expect(cli('note', 'run', '1', '').code).toBe(0)
    const plain = cli('show', '1').stdout
    expect(plain).not.toMatch(/\n(set aside|notes) /)
  })

  it('archives an experiment and brings it back with archive --restore', () => {
    expect(cli('archive', 'experiment', 'cli-mng', '--yes').stdout).toBe('archived: experiment 1; bring it back with p4lab restore experiment 1\n')
    expect(listed()).toEqual([])
    expect(JSON.parse(cli('list', '--archived', '--json').stdout)).toMatchObject([{ name: 'cli-mng' }])
    // The name stays taken: running the file again says where the experiment is.
    const again = cli('run', 'mng.yaml')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/an experiment named 'cli-mng' already exists \(experiment 1, archived\).*p4lab restore experiment 1/)
    expect(cli('archive', '--restore', 'experiment', 'cli-mng').stdout).toBe('restored experiment 1\n')
    expect(listed()).toEqual([['cli-mng', [1]]])
  }, 60_000)

  it('refuses to delete a run that has not ended, naming it', () => {
    const store = openStore(db)
    let id: number
    try {
      const [run] = store.createRuns(1, 'sim', processOwner(), [{ scheme: 'ecmp', load: 0.3, seed: 9, params: {} }])
      store.setRunStatus(run.id, 'running')
      id = run.id
    } finally {
      store.close()
    }
    const r = cli('rm', 'run', String(id), '--yes')
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`p4lab: cannot delete a run that has not ended: run ${id} is running; cancel it first (Cancel in the app), or wait for it to end\n`)
    const s = openStore(db)
    try {
      expect(s.getRun(id)).toMatchObject({ status: 'running', deletedAt: null })
      s.setRunStatus(id, 'cancelled')
    } finally {
      s.close()
    }
  })
})

describe('p4lab import of an archive already here', () => {
  it('skips it with a message by default, and imports a copy with --copy', () => {
    expect(cli('export', 'cli-mng', '-o', join(dir, 'm.tar.gz')).code).toBe(0)
    const skip = cli('import', join(dir, 'm.tar.gz'))
    expect(skip.code, skip.stderr).toBe(0)
    expect(skip.stdout).toMatch(/^skipped: .*m\.tar\.gz is already here as experiment 1 cli-mng \(same content hash\); nothing imported\. --copy imports it again as a copy\n$/)
    expect(listed().map((e) => e[0])).toEqual(['cli-mng'])
    const copy = cli('import', join(dir, 'm.tar.gz'), '--copy', '--json')
    expect(copy.code, copy.stderr).toBe(0)
    expect(JSON.parse(copy.stdout)).toMatchObject({ name: 'cli-mng (2)', skipped: false, duplicateOf: { experimentId: 1, name: 'cli-mng' } })
    // Once imported, that copy holds the archive too: a third import is skipped as well.
    expect(JSON.parse(cli('import', join(dir, 'm.tar.gz'), '--json').stdout)).toMatchObject({ skipped: true, experimentId: 1 })
  }, 120_000)
})
