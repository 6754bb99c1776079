// The p4lab command as a user runs it: the built bin, real files, real SQLite.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { KNOWN_PARAMS, SCHEMES, schemeInfo } from '../../src-main/schemes'
import { openStore } from '../../src-main/core/store'
import { eventText } from '../../src-main/plots/format'
import { ROOT } from '../helpers/start'
import { SWEEP_YAML, TINY_YAML, p4lab, p4labAsync } from '../helpers/cli'

const QUICKSTART = join(ROOT, 'resources', 'experiments', 'quickstart.yaml')


const TINY = TINY_YAML

describe('p4lab run: bad input', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-'))
  })

  const cases: Array<[string, string, RegExp]> = [
    ['invalid YAML', TINY.replace('schemes: [ecmp]', 'schemes: [ecmp'), /bad\.yaml:\d+:\d+:/],
    ['an unknown scheme', TINY.replace('schemes: [ecmp]', 'schemes: [ecmp, hulla]'), /bad\.yaml:4:\d+: schemes\[1\]: .*hulla/],
    ['a load above 1', TINY.replace('load: [0.3]', 'load: [0.3, 1.5]'), /bad\.yaml:7:\d+: workload\.load\[1\]: .*\(0, 1\]/],
    ['a load of 0', TINY.replace('load: [0.3]', 'load: [0]'), /bad\.yaml:7:\d+: workload\.load\[0\]: .*\(0, 1\]/],
    [
      'a missing workload file',
      TINY.replace('kind: web-search', 'kind: cdf\n  file: ./nowhere.cdf'),
      /bad\.yaml:7:\d+: workload\.file: .*nowhere\.cdf/,
    ],
  ]
  for (const [what, yaml, expected] of cases) {
    it(`reports ${what} with file:line and the field, and writes nothing`, () => {
      writeFileSync(join(dir, 'bad.yaml'), yaml)
      const db = join(dir, `${what.replace(/\W+/g, '-')}.db`)
      const r = p4lab(['run', 'bad.yaml', '--db', db], dir)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(expected)
      expect(existsSync(db)).toBe(false)
    })
  }

  it('refuses a device that never ends (/dev/zero) at the size budget, and a folder, naming them', () => {
    const zero = p4lab(['run', '/dev/zero', '--db', join(dir, 'z.db')], dir, { timeoutMs: 60_000 })
    expect(zero.code).toBe(2)
    expect(zero.stderr).toBe('/dev/zero:1:1: document: it is not a regular file and gave more than 1,048,576 bytes without ending (a device or a pipe?); an experiment file may be at most 1,048,576 bytes\n')
    const v = p4lab(['validate', '/dev/zero'], dir, { timeoutMs: 60_000 })
    expect(v.code).toBe(1)
    expect(v.stderr).toMatch(/^p4lab: \/dev\/zero: it is not a regular file and gave more than 1,048,576 bytes/)
    const folder = p4lab(['run', dir, '--db', join(dir, 'z.db')], dir)
    expect([folder.code, folder.stderr]).toEqual([2, `p4lab: cannot read experiment file ${dir}: it is a folder; give a file\n`])
    expect(existsSync(join(dir, 'z.db'))).toBe(false)
  })

  it('refuses a file that does not exist', () => {
    const r = p4lab(['run', 'missing.yaml', '--db', join(dir, 'x.db')], dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/cannot read experiment file missing\.yaml/)
  })
})

describe('a --db that cannot be a database', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-db-'))
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
  })

  it('names the file and why for a file that is not SQLite, and leaves it as it was', () => {
    const junk = join(dir, 'notes.txt')
    writeFileSync(junk, 'my notes, not a database\n')
    for (const args of [['list'], ['show', '1'], ['run', 'tiny.yaml'], ['validate', 'tiny.yaml'], ['topology', 'export', 'tiny.yaml', '--format', 'clab'], ['testbed', 'list'], ['p4', 'build', 'x.p4', '--target', 'bmv2']]) {
      const r = p4lab([...args, '--db', junk], dir)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toContain(`p4lab: cannot open the database ${junk} (--db): it is not a p4lab database (not SQLite)`)
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /)
    }
    expect(readFileSync(junk, 'utf8')).toBe('my notes, not a database\n')
  })

  it('is not created by a command that reads or changes what is stored: the missing file is named', () => {
    const db = join(dir, 'typo', 'p4lab.db')
    for (const args of [['show', '1'], ['compare', 'tiny'], ['rename', 'tiny', 'other'], ['tag', 'run', '1', 'x'], ['note', 'run', '1', 'x'], ['rm', 'run', '1', '--yes'], ['export', 'tiny', '-o', 'x.tar.gz']]) {
      const r = p4lab([...args, '--db', db], dir)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toBe(`p4lab: no database at ${db} (--db): nothing was run or imported there (p4lab run or p4lab import creates it)\n`)
    }
    expect(p4lab(['list', '--db', db], dir).stdout).toBe(`no experiments yet: no database at ${db} (--db)\n`)
    expect(JSON.parse(p4lab(['list', '--db', db, '--json'], dir).stdout)).toEqual([])
    expect(existsSync(join(dir, 'typo'))).toBe(false)
  })

  it('ends with an error, not a spin at full CPU, for a --db or --out under /proc (a folder there cannot be made)', () => {
    const r = p4lab(['run', 'tiny.yaml', '--db', '/proc/p4lab-no-such/x.db'], dir, { timeoutMs: 60_000 })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("p4lab: cannot open the database /proc/p4lab-no-such/x.db (--db): ENOENT: no such file or directory, mkdir '/proc/p4lab-no-such'\n")
    const out = p4lab(['p4', 'render', '--topology', 'tiny.yaml', '--scheme', 'ecmp', '--target', 'bmv2', '--out', '/proc/p4lab-no-such/o'], dir, { timeoutMs: 60_000 })
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(/^p4lab: --out \/proc\/p4lab-no-such\/o: cannot create that folder: ENOENT/)
  })

  it('names the folder given where a database file belongs', () => {
    for (const args of [['list'], ['run', 'tiny.yaml']]) {
      const r = p4lab([...args, '--db', dir], dir)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toContain(`p4lab: cannot open the database ${dir} (--db): it is a folder`)
    }
  })
})

describe('--json on an error', () => {
  it('prints the error as a JSON object on stdout (and as text on stderr), with the exit code of the error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-json-'))
    writeFileSync(join(dir, 'load.yaml'), TINY.replace('load: [0.3]', 'load: [1.5]'))
    writeFileSync(join(dir, 'junk.db'), 'not a database\n')
    const db = join(dir, 'j.db')
    expect(p4lab(['testbed', 'list', '--db', db], dir).code).toBe(0)
    const cases: Array<[string[], number, RegExp]> = [
      [['run', 'load.yaml', '--db', db], 2, /^load\.yaml:7:\d+: workload\.load\[0\]: .*got 1\.5$/],
      [['run', 'missing.yaml', '--db', db], 2, /^cannot read experiment file missing\.yaml/],
      [['run', 'load.yaml', '--parallel', 'x', '--db', db], 2, /^--parallel must be a positive integer, got 'x'$/],
      [['show', '999', '--db', db], 1, /^run 999 does not exist in /],
      [['list', '--db', join(dir, 'junk.db')], 1, /^cannot open the database .*junk\.db \(--db\): it is not a p4lab database/],
      [['compare', 'nope', '--db', db], 1, /^no experiment named 'nope'/],
      [['testbed', 'check', 'nope', '--db', db], 2, /^testbed 'nope' does not exist$/],
    ]
    for (const [args, code, error] of cases) {
      const r = p4lab([...args, '--json'], dir)
      expect(r.code, args.join(' ')).toBe(code)
      const out = JSON.parse(r.stdout) as { error: string }
      expect(out.error, args.join(' ')).toMatch(error)
      expect(out.error, args.join(' ')).not.toContain('usage:')
      expect(r.stderr, args.join(' ')).toContain(out.error.split('\n')[0])
    }
  })

  it('is what the command failed with, without the notices written to stderr before it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-json-'))
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    const db = join(dir, 'n.db')
    expect(p4lab(['run', 'tiny.yaml', '--db', db], dir).code).toBe(0)
    // A run whose process is gone (another boot): the next command marks it, with a notice on stderr.
    const cutOff = () => {
      const s = openStore(db)
      try {
        return s.createRuns(1, 'sim', `${hostname()}:1:not-this-boot:1`, [{ scheme: 'ecmp', load: 0.3, seed: 9, params: {} }])[0].id
      } finally {
        s.close()
      }
    }
    const cases: Array<[string[], number, string | RegExp]> = [
      [['compare', 'nope'], 1, `no experiment named 'nope' in ${db} (give a name or an id; 'p4lab list' shows them)`],
      [['list', '--where', 'schme = ecmp'], 2, /^--where: column 1: unknown field 'schme'; known fields: [^\n]+\nschme = ecmp\n\^$/],
    ]
    for (const [args, code, error] of cases) {
      const id = cutOff()
      const r = p4lab([...args, '--db', db, '--json'], dir)
      expect(r.code, args.join(' ')).toBe(code)
      expect(r.stderr, args.join(' ')).toContain(`p4lab: marked 1 run(s) cut off earlier as interrupted: ${id}\n`)
      const out = (JSON.parse(r.stdout) as { error: string }).error
      if (typeof error === 'string') expect(out, args.join(' ')).toBe(error)
      else expect(out, args.join(' ')).toMatch(error)
    }
  })
})

describe('p4lab run: Ctrl-C during start-up', () => {
  it('right after the runs are stored cancels them: none is left open for the next p4lab to mark interrupted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-int-'))
    writeFileSync(join(dir, 'two.yaml'), TINY.replace('name: tiny', 'name: ctrlc').replace('schemes: [ecmp]', 'schemes: [ecmp, rps]').replace('flows: 40', 'flows: 4000'))
    const db = join(dir, 'c.db')
    // The hook sends SIGINT at that point of the program, not after a delay.
    const hook = join(ROOT, 'test', 'fixtures', 'cli', 'signal-after-insert.mjs')
    const r = p4lab(['run', 'two.yaml', '--db', db, '--parallel', '1', '--json'], dir, { env: { NODE_OPTIONS: `--import ${hook}`, P4LAB_TEST_SIGNAL: 'SIGINT', P4LAB_TEST_TABLE: 'runs' } })
    expect(r.code, r.stderr).toBe(130)
    expect(r.stderr).toContain('p4lab: cancelling...')
    const d = new Database(db, { readonly: true })
    try {
      expect(d.prepare('SELECT scheme, status FROM runs ORDER BY id').all()).toEqual([
        { scheme: 'ecmp', status: 'cancelled' },
        { scheme: 'rps', status: 'cancelled' },
      ])
    } finally {
      d.close()
    }
  })
})

describe('p4lab testbed: mistakes', () => {
  it('names the subcommands when an option comes first or a subcommand is unknown', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-tb-'))
    const first = p4lab(['testbed', '--db', 'x.db', 'list'], dir)
    expect(first.code).toBe(2)
    expect(first.stderr.split('\n')[0]).toBe("p4lab: testbed needs a subcommand before its options (add, host-add, host-remove, list, check, trust, clean, map or remove), got '--db'")
    expect(p4lab(['testbed', 'lst'], dir).stderr.split('\n')[0]).toBe("p4lab: unknown testbed subcommand 'lst'; expected add, host-add, host-remove, list, check, trust, clean, map or remove")
  })

  it('testbed map --file names the file whose YAML or mapping is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-tb-'))
    const db = join(dir, 't.db')
    expect(p4lab(['testbed', 'add', 'lab', '--kind', 'bmv2', '--host', 'sw1.example', '--db', db], dir).code).toBe(0)
    writeFileSync(join(dir, 'broken.yaml'), 'switches: [a\n  b: : c\n')
    const r = p4lab(['testbed', 'map', 'lab', '--file', 'broken.yaml', '--db', db], dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^p4lab: --file broken\.yaml: mapping YAML, line \d+: /)
  })
})

describe('ids as typed', () => {
  it('show takes a run id in digits only; compare names an id too large as it was typed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-ids-'))
    const db = join(dir, 'i.db')
    expect(p4lab(['testbed', 'list', '--db', db], dir).code).toBe(0)
    for (const id of ['0x10', '1e0', '99999999999999999999']) {
      const r = p4lab(['show', id, '--db', db], dir)
      expect(r.code, id).toBe(2)
      expect(r.stderr.split('\n')[0], id).toBe(`p4lab: RUN must be a run id (a positive integer), got '${id}'`)
    }
    const big = p4lab(['compare', '99999999999999999999', '--db', db], dir)
    expect([big.code, big.stderr]).toEqual([1, `p4lab: experiment 99999999999999999999 does not exist in ${db}\n`])
  })
})

describe('p4lab cluster add --local', () => {
  it('saves a relative --work as the absolute folder it names here, so later commands elsewhere use the same one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-cl-'))
    const db = join(dir, 'c.db')
    mkdirSync(join(dir, 'shared'))
    const r = p4lab(['cluster', 'add', 'here', '--local', '--work', 'shared/slurm', '--db', db], dir)
    expect(r.code, r.stderr).toBe(0)
    const listed = JSON.parse(p4lab(['cluster', 'list', '--db', db, '--json'], tmpdir()).stdout) as Array<{ name: string; workDir: string }>
    expect(listed.map((c) => [c.name, c.workDir])).toEqual([['here', join(dir, 'shared', 'slurm')]])
    const home = p4lab(['cluster', 'add', 'home', '--local', '--work', '~/p4lab-slurm', '--db', db], dir, { env: { HOME: dir } })
    expect(home.code, home.stderr).toBe(0)
    expect(existsSync(join(dir, 'p4lab-slurm'))).toBe(true)
    const again = JSON.parse(p4lab(['cluster', 'list', '--db', db, '--json'], dir).stdout) as Array<{ name: string; workDir: string }>
    expect(again.find((c) => c.name === 'home')?.workDir).toBe('~/p4lab-slurm')
  })

  it('makes a missing work folder whose parent exists, and refuses one under a missing parent or a file, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-cl-'))
    const db = join(dir, 'c.db')
    const made = p4lab(['cluster', 'add', 'made', '--local', '--work', join(dir, 'work'), '--db', db], dir)
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout.split('\n')[0]).toBe(`saved Slurm cluster made: this machine, work folder ${join(dir, 'work')} (created)`)
    expect(existsSync(join(dir, 'work'))).toBe(true)
    const missing = join(dir, 'no-such', 'work')
    const r = p4lab(['cluster', 'add', 'typo', '--local', '--work', missing, '--db', db], dir)
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(`p4lab: work folder ${missing}: its parent ${join(dir, 'no-such')} does not exist; on a local cluster the work folder is on this machine: create the parent first, or give another folder`)
    expect(existsSync(join(dir, 'no-such'))).toBe(false)
    writeFileSync(join(dir, 'notes.txt'), 'x\n')
    const file = p4lab(['cluster', 'add', 'file', '--local', '--work', join(dir, 'notes.txt'), '--db', db], dir)
    expect([file.code, file.stderr.split('\n')[0]]).toEqual([2, `p4lab: work folder ${join(dir, 'notes.txt')}: that is a file, not a folder`])
    const listed = JSON.parse(p4lab(['cluster', 'list', '--db', db, '--json'], dir).stdout) as Array<{ name: string }>
    expect(listed.map((c) => c.name)).toEqual(['made'])
  })
})

describe('p4lab serve on a port in use', () => {
  it('names the port and what to do, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-serve-'))
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as AddressInfo).port
    try {
      const r = await p4labAsync(['serve', '--port', String(port), '--db', join(dir, 's.db')], dir, { timeoutMs: 60_000 })
      expect([r.code, r.stderr]).toEqual([1, `p4lab: --port ${port}: 127.0.0.1:${port} is in use by another program; choose another --port, or 0 for a free one\n`])
    } finally {
      taken.close()
    }
  })
})

describe('p4lab help lists the schemes from the registry', () => {
  it('run --help: every scheme with its label and paper, every parameter with its unit, default and schemes', () => {
    const r = p4lab(['run', '--help'], tmpdir())
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    for (const d of SCHEMES.map(schemeInfo)) {
      const line = lines.find((l) => l.startsWith(`  ${d.name} `))
      expect(line, d.name).toBeDefined()
      expect(line).toContain(`${d.label}: ${d.summary}`)
      if (d.paper) expect(line).toContain(d.paper.title)
    }
    for (const [key, p] of Object.entries(KNOWN_PARAMS)) {
      const line = lines.find((l) => l.startsWith(`  ${key} `))
      expect(line, key).toMatch(new RegExp(`^  ${key} +${p.unit} +\\S+ +${p.schemes.join(', ')}: `))
    }
    expect(lines.find((l) => l.startsWith('  flowletGap '))).toMatch(/ 100us /)
  })

  it('p4 --help and p4 render name the schemes that have P4 programs', () => {
    const help = p4lab(['p4', '--help'], tmpdir())
    expect(help.code).toBe(0)
    for (const d of SCHEMES.map(schemeInfo)) {
      if (d.p4Program) expect(help.stdout).toMatch(new RegExp(`\\n  ${d.name} +${d.p4Program}\\.p4 +${d.label}`))
    }
    const r = p4lab(['p4', 'render', '--topology', 'x.yaml', '--out', 'o'], tmpdir())
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`--scheme is required (${SCHEMES.map(schemeInfo).filter((d) => d.p4Program).map((d) => d.name).join(', ')})`)
  })
})

describe('a usage error', () => {
  it("names the mistake over that command's usage alone, not every command's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-usage-'))
    const cases: Array<[string[], string]> = [
      [['show', 'abc'], 'usage: p4lab show RUN [--db PATH] [--json]'],
      [['compare', 'x', '--metric', 'foo'], 'usage: p4lab compare EXPERIMENT...'],
      [['list', '--bogus'], 'usage: p4lab list [--where QUERY]'],
    ]
    for (const [args, usage] of cases) {
      const r = p4lab(args, dir)
      expect(r.code, args.join(' ')).toBe(2)
      const lines = r.stderr.split('\n')
      expect(lines[0], args.join(' ')).toMatch(/^p4lab: /)
      expect(lines[2], args.join(' ')).toContain(usage)
      expect(r.stderr, args.join(' ')).toContain('p4lab --help lists every command')
      expect(r.stderr, args.join(' ')).not.toContain('testbed add NAME')
    }
    // A command that is not one still lists them all.
    expect(p4lab(['shwo', '1'], dir).stderr).toContain('testbed add NAME')
  })
})

describe('an experiment named as it was before a rename', () => {
  it('is refused naming what it is called now', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-renamed-'))
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    const db = join(dir, 'r.db')
    expect(p4lab(['run', 'tiny.yaml', '--db', db], dir).code).toBe(0)
    expect(p4lab(['rename', 'tiny', 'tiny-v1', '--db', db], dir).code).toBe(0)
    for (const args of [['compare', 'tiny'], ['export', 'tiny', '-o', 'x.tar.gz'], ['rename', 'tiny', 'tiny-v2']]) {
      const r = p4lab([...args, '--db', db], dir)
      expect([r.code, r.stderr], args.join(' ')).toEqual([1, `p4lab: no experiment named 'tiny' in ${db}: it was renamed to 'tiny-v1' (experiment 1); give that name or the id\n`])
    }
    // A name no experiment ever had reads as before.
    expect(p4lab(['compare', 'nope', '--db', db], dir).stderr).toBe(`p4lab: no experiment named 'nope' in ${db} (give a name or an id; 'p4lab list' shows them)\n`)
  })
})

describe('p4lab compare --by another field than load', () => {
  it('keeps the loads apart as lines, each over its own seeds, rather than pooling them as seeds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-by-'))
    const db = join(dir, 's.db')
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML)
    expect(p4lab(['run', 'sweep.yaml', '--db', db], dir).code).toBe(0)
    const r = p4lab(['compare', 'rt-sweep', '--by', 'scheme', '--db', db, '--json'], dir)
    expect(r.code, r.stderr).toBe(0)
    const res = JSON.parse(r.stdout) as { lineKeys: string[]; rows: Array<{ line: Record<string, unknown>; x: string; n: number; seeds: number[]; lo: number }> }
    expect(res.lineKeys).toEqual(['load'])
    expect(res.rows.map((row) => [row.x, row.line.load, row.n, row.seeds])).toEqual([
      ['ecmp', 0.3, 2, [1, 2]],
      ['rps', 0.3, 2, [1, 2]],
      ['ecmp', 0.6, 2, [1, 2]],
      ['rps', 0.6, 2, [1, 2]],
    ])
    const text = p4lab(['compare', 'rt-sweep', '--by', 'scheme', '--db', db], dir).stdout
    expect(text).toMatch(/\nload +scheme +seeds +mean +lo +hi/)
  })
})

describe('a rename to a name another experiment has', () => {
  it('is refused saying to choose another name, not to save a text it does not have as a revision', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-rename-taken-'))
    const db = join(dir, 'r.db')
    writeFileSync(join(dir, 'a.yaml'), TINY)
    writeFileSync(join(dir, 'b.yaml'), TINY.replace('name: tiny', 'name: other'))
    for (const f of ['a.yaml', 'b.yaml']) expect(p4lab(['run', f, '--db', db], dir).code).toBe(0)
    const r = p4lab(['rename', 'tiny', 'other', '--db', db], dir)
    expect([r.code, r.stderr]).toEqual([1, "p4lab: an experiment named 'other' already exists (experiment 2); choose another name\n"])
  })
})

describe('the same file run with --testbed', () => {
  let dir: string
  let db: string
  let onLab: ReturnType<typeof p4lab>

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-other-tb-'))
    db = join(dir, 't.db')
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    expect(p4lab(['run', 'tiny.yaml', '--db', db], dir).code).toBe(0)
    // A testbed whose host answers nothing: its run fails at once, at the check.
    expect(p4lab(['testbed', 'add', 'lab', '--kind', 'bmv2', '--host', 'root@127.0.0.1:1', '--db', db], dir).code).toBe(0)
    onLab = p4lab(['run', 'tiny.yaml', '--testbed', 'lab', '--db', db], dir)
  }, 120_000)

  it('says the testbed changed, not that the file did', () => {
    expect(onLab.code, onLab.stderr).toBe(1)
    expect(onLab.stderr).toContain('p4lab: --testbed lab: experiment tiny last ran on another testbed (revision 1); saved as revision 2 with testbed: lab; runs on the other one are now stale\n')
    expect(onLab.stderr).not.toContain('tiny.yaml differs')
  })

  it('shows a failed run without counters as such, and a step under 1 ms in ms', () => {
    const shown = p4lab(['show', '2', '--db', db], dir).stdout
    expect(shown).toContain('\ncounters  none stored\n')
    expect(shown).not.toMatch(/\ncounters\n\n/)
    expect(eventText('step', { step: 'teardown', state: 'done', ms: 0 })).toBe('teardown done in 0 ms')
    expect(eventText('step', { step: 'build', state: 'done', ms: 1500 })).toBe('build done in 1.5 s')
  })

  it('shows a failed run without numbers as - in every result column, slowdown too (n/a is a run stored before it was measured)', () => {
    const row = /^2 +ecmp +0\.3 +1 +failed .*$/m
    expect(onLab.stdout).toMatch(row)
    const listed = p4lab(['list', '--db', db], dir).stdout
    for (const out of [onLab.stdout, listed]) expect(row.exec(out)![0]).toMatch(/failed( +-){8}$/)
  })
})

describe('p4lab run, list and show', () => {
  it('runs an experiment, stores it, and lists and shows it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-'))
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    const db = join(dir, 'tiny.db')
    const r = p4lab(['run', 'tiny.yaml', '--db', db], dir)
    expect(r.stderr).toMatch(/run 1 ecmp load=0\.3 seed=1: done/)
    // Every step from the first: a run started at once goes to deploying before the command hears back.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('run 1 '))).toEqual(['deploying', 'running', 'collecting', 'done'].map((s) => `run 1 ecmp load=0.3 seed=1: ${s}`))
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/scheme\s+load\s+seed/)
    expect(r.stdout).toMatch(/ecmp\s+0\.3\s+1\s+done\s+40\/40/)

    const list = p4lab(['list', '--db', db], dir)
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/experiment 1 tiny/)
    const show = p4lab(['show', '1', '--db', db, '--json'], dir)
    const run = JSON.parse(show.stdout)
    expect(run.status).toBe('done')
    expect(run.stats.finished).toBe(40)
    expect(run.events.map((e: { detail: { to: string } }) => e.detail.to)).toEqual([
      'queued',
      'deploying',
      'running',
      'collecting',
      'done',
    ])
    expect(run.series).toBeGreaterThan(0)
    expect(p4lab(['show', '99', '--db', db], dir).code).toBe(1)
  })
})

describe('p4lab run quickstart --json', () => {
  it('gives FCT statistics for every run, and the same JSON twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-'))
    copyFileSync(QUICKSTART, join(dir, 'quickstart.yaml'))
    const first = p4lab(['run', QUICKSTART, '--db', 'q.db', '--json'], dir)
    expect(first.code, first.stderr).toBe(0)
    const second = p4lab(['run', QUICKSTART, '--db', 'q.db', '--json'], dir)
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toBe(first.stdout)

    const out = JSON.parse(first.stdout)
    const schemes = new Set(out.runs.map((r: { scheme: string }) => r.scheme))
    const loads = new Set(out.runs.map((r: { load: number }) => r.load))
    expect(schemes).toEqual(new Set(['ecmp', 'rps']))
    expect(loads.size).toBeGreaterThanOrEqual(2)
    for (const run of out.runs) {
      expect(run.status).toBe('done')
      expect(run.flows).toBeGreaterThan(0)
      expect(run.fct.meanNs).toBeGreaterThan(0)
      expect(run.fct.p99Ns).toBeGreaterThanOrEqual(run.fct.p50Ns)
    }
    // Both invocations are in the database, each with its flows.
    const sqlite = new Database(join(dir, 'q.db'), { readonly: true })
    const n = sqlite.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }
    sqlite.close()
    expect(n.n).toBe(2 * out.runs.length)
  }, 300_000)
})
