// A database this user cannot write: on a read-only mount (a bind remounted read-only in a
// mount namespace of its own, which root cannot write through either), and a file of mode 444
// in a folder of mode 555 read by an unprivileged user. Reading commands open it read-only and
// leave it as it was; commands that write, and a schema that needs migrating, name the file
// and say it is read-only. The built bin on a real SQLite store.
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { BIN, killWhen, p4lab, TINY_YAML, withDb } from '../helpers/cli'
import { SCHEMA_VERSION } from '../../src-main/core/store'

const OLD_FIXTURE = join(__dirname, '..', 'fixtures', 'store', 'schema4-release.sqlite')
/** mount --bind FOLDER FOLDER, remounted read-only, then the command: in a mount namespace only it sees. */
const READ_ONLY_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
const NOBODY = 65534

let dir: string
let ro: string
let db: string

function onReadOnlyMount(folder: string, argv: string[]) {
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', READ_ONLY_MOUNT, folder, ...argv], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, P4LAB_HOME: join(dir, 'home') },
    timeout: 120_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: `${r.stderr}${r.error ? String(r.error) : ''}` }
}
const readOnly = (...args: string[]) => onReadOnlyMount(ro, [process.execPath, BIN, ...args, '--db', db])

/** Can this machine make a read-only bind mount in a namespace of its own (root, or CAP_SYS_ADMIN)? */
function probe(): string | null {
  const probeDir = mkdtempSync(join(tmpdir(), 'p4lab-ro-probe-'))
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `${READ_ONLY_MOUNT}`, probeDir, 'sh', '-c', 'touch "$0/x" 2>/dev/null && echo writable || echo read-only', probeDir], { encoding: 'utf8' })
  return r.status === 0 && r.stdout.trim() === 'read-only' ? null : `cannot make a read-only bind mount here (not root?): ${r.stderr || r.stdout || String(r.error)}`
}
const why = probe()
if (why) console.warn(`[readonly] skipping the read-only mount tests: ${why}`)

/** Every file of the folder with its bytes: what a read-only open must leave as it was. */
function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f)).toString('base64')]))
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-readonly-'))
  ro = join(dir, 'ro')
  db = join(ro, 'p.db')
  writeFileSync(join(dir, 'tiny.yaml'), TINY_YAML)
  const r = p4lab(['run', 'tiny.yaml', '--db', db], dir)
  expect(r.code, r.stderr).toBe(0)
  mkdirSync(join(dir, 'old'))
  copyFileSync(OLD_FIXTURE, join(dir, 'old', 'o.db'))
}, 120_000)

describe.skipIf(why !== null)('a database on a read-only mount', () => {
  it('is read by list, show, compare, export and validate, and left as it was', () => {
    const before = snapshot(ro)
    expect(Object.keys(before)).toEqual(['p.db'])
    const list = readOnly('list', '--json')
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).map((e: { name: string; runs: Array<{ status: string }> }) => [e.name, e.runs.map((x) => x.status)])).toEqual([['tiny', ['done']]])
    const show = readOnly('show', '1')
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toMatch(/^run 1: tiny, ecmp, load 0.3, seed 1 on sim\nstatus {4}done\n/)
    const compare = readOnly('compare', 'tiny', '--json')
    expect(compare.code, compare.stderr).toBe(0)
    const archive = join(dir, 'tiny.tar.gz')
    const exported = readOnly('export', 'tiny', '-o', archive)
    expect(exported.code, exported.stderr).toBe(0)
    expect(existsSync(archive)).toBe(true)
    const valid = readOnly('validate', join(dir, 'tiny.yaml'))
    expect(valid.code, valid.stderr).toBe(0)
    for (const r of [list, show, compare, exported, valid]) expect(r.stderr).toBe('')
    expect(snapshot(ro)).toEqual(before)
  })

  it('export into the read-only folder names the folder and why, and leaves it as it was', () => {
    const before = snapshot(ro)
    const r = readOnly('export', 'tiny', '-o', join(ro, 'tiny.tar.gz'))
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`p4lab: export: cannot write in the folder ${ro} (a read-only file system); choose a folder you can write\n`)
    expect(snapshot(ro)).toEqual(before)
  })

  it('is refused by commands that write, naming the file and saying it is read-only', () => {
    for (const args of [['run', join(dir, 'tiny.yaml')], ['rename', 'tiny', 'tiny2'], ['tag', 'run', '1', 'x'], ['rm', 'run', '1']]) {
      const r = readOnly(...args)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr, args.join(' ')).toBe(`p4lab: cannot open the database ${db} (--db): it is read-only here (a read-only file system), and this writes to it: make it writable, or copy it where it can be written and use the copy\n`)
    }
  })

  it('that needs migrating is named as read-only and needing a writable open, in --json too', () => {
    const old = join(dir, 'old', 'o.db')
    const r = onReadOnlyMount(join(dir, 'old'), [process.execPath, BIN, 'list', '--json', '--db', old])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toEqual({
      error: `cannot open the database ${old} (--db): it is read-only here (a read-only file system) and needs migrating (schema version 4, this p4lab reads ${SCHEMA_VERSION}), which writes to it: open it once with a p4lab command where it can be written, then read it here`,
    })
    expect(readdirSync(join(dir, 'old'))).toEqual(['o.db'])
  })
})

describe.skipIf(why !== null)('runs left in flight by a p4lab that was killed, on a read-only mount', () => {
  it('are read as interrupted, saying it is not recorded, and the file is left as it was; a writable open then marks them', async () => {
    const cut = join(dir, 'cut')
    mkdirSync(cut)
    const file = join(cut, 'k.db')
    // Two runs one at a time: killed with the first running and the second queued.
    writeFileSync(join(dir, 'long.yaml'), TINY_YAML.replace('name: tiny', 'name: long').replace('schemes: [ecmp]', 'schemes: [ecmp, rps]').replace('flows: 40', 'flows: 20000'))
    await killWhen(['run', join(dir, 'long.yaml'), '--db', file, '--parallel', '1'], dir, file, (d) => d.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'running'").pluck().get() === 1)
    // Fold the log the killed writer left into the file (a read-only open cannot read a log
    // without creating its -shm); a plain SQLite open and close changes no row.
    const fold = new Database(file)
    fold.pragma('wal_checkpoint(TRUNCATE)')
    fold.close()
    expect(readdirSync(cut)).toEqual(['k.db'])
    expect(withDb(file, (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all())).toEqual(['running', 'queued'])
    const before = snapshot(cut)
    const onMount = (...args: string[]) => onReadOnlyMount(cut, [process.execPath, BIN, ...args, '--db', file])

    const list = onMount('list', '--json')
    expect(list.code, list.stderr).toBe(0)
    const runs = (JSON.parse(list.stdout) as Array<{ runs: Array<{ id: number; status: string; error: string }> }>)[0].runs
    expect(runs.map((r) => [r.id, r.status])).toEqual([[1, 'interrupted'], [2, 'interrupted']])
    for (const r of runs) expect(r.error).toMatch(/^the process that owned this run \(\S+\) is gone; it was last seen alive at \S+ \(not recorded: the database is read-only here\)$/)
    expect(list.stderr).toBe('p4lab: 2 run(s) cut off earlier show as interrupted, not as stored: 1, 2 (the process that owned them is gone; not recorded: the database is read-only here)\n')
    const text = onMount('list')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).not.toMatch(/running|queued/)
    expect(text.stdout.match(/ interrupted /g)).toHaveLength(2)
    const show = onMount('show', '1')
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toMatch(/\nstatus {4}interrupted: the process that owned this run \(\S+\) is gone; .*\(not recorded: the database is read-only here\)\n/)
    expect(snapshot(cut)).toEqual(before)

    // Where it can be written, the next open records what the read-only one showed.
    const marked = p4lab(['list', '--json', '--db', file], dir)
    expect(marked.stderr).toBe('p4lab: marked 2 run(s) cut off earlier as interrupted: 1, 2\n')
    expect((JSON.parse(marked.stdout) as Array<{ runs: Array<{ status: string }> }>)[0].runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted'])
  }, 300_000)
})

describe.skipIf(why !== null)('a local Slurm cluster whose work folder is on a read-only mount', () => {
  it('cluster check names the folder as one this user cannot write in, or cannot make the folder in, and makes nothing', () => {
    const mnt = join(dir, 'ro-work')
    const work = join(mnt, 'work')
    mkdirSync(work, { recursive: true })
    const cdb = join(dir, 'clusters.db')
    for (const [name, folder] of [['ro', work], ['ro-missing', join(work, 'sub')]]) {
      const added = p4lab(['cluster', 'add', name, '--local', '--work', folder, '--db', cdb], dir)
      expect(added.code, added.stderr).toBe(0)
    }
    // Saving a local cluster made its folder; gone since, it is the sweep's to make.
    rmdirSync(join(work, 'sub'))
    const item = (name: string) => {
      const r = onReadOnlyMount(mnt, [process.execPath, BIN, 'cluster', 'check', name, '--db', cdb, '--json'])
      expect(r.code, r.stderr).toBe(1)
      return (JSON.parse(r.stdout) as { items: Array<{ name: string; ok: boolean; detail: string }> }).items.find((i) => i.name === 'shared work folder')
    }
    expect(item('ro')).toMatchObject({ ok: false, detail: `${work}: this user cannot write in it (no write permission, or a read-only file system)` })
    expect(item('ro-missing')).toMatchObject({ ok: false, detail: `${join(work, 'sub')}: does not exist, and this user cannot make it in ${work} (no write permission, or a read-only file system)` })
    expect(readdirSync(work)).toEqual([])
  })
})

/** Whether the unprivileged user can run the bin from here (the tree readable by others). */
function nobodyProbe(): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot switch to another user'
  const r = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, BIN, '--version'], { encoding: 'utf8' })
  return r.status === 0 ? null : `the user nobody cannot run ${BIN}: ${r.stderr || String(r.error)}`
}
const nobodyWhy = why ?? nobodyProbe()
if (nobodyWhy) console.warn(`[readonly] skipping the unprivileged-user test: ${nobodyWhy}`)

describe.skipIf(nobodyWhy !== null)('a database file of mode 444 in a folder of mode 555, read by another user', () => {
  it('is read by list and show, and refused by a command that writes', () => {
    const shared = join(dir, 'shared')
    mkdirSync(shared)
    copyFileSync(db, join(shared, 'p.db'))
    chmodSync(join(shared, 'p.db'), 0o444)
    chmodSync(shared, 0o555)
    chmodSync(dir, 0o755)
    const home = join(dir, 'nobody')
    mkdirSync(home)
    chownSync(home, NOBODY, NOBODY)
    const file = join(shared, 'p.db')
    const asNobody = (...args: string[]) => {
      const r = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, BIN, ...args, '--db', file], {
        cwd: home,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, P4LAB_HOME: home },
        timeout: 120_000,
      })
      return { code: r.status, stdout: r.stdout, stderr: r.stderr }
    }
    const list = asNobody('list', '--json')
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).map((e: { name: string }) => e.name)).toEqual(['tiny'])
    const show = asNobody('show', '1')
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toMatch(/^run 1: tiny/)
    const tag = asNobody('tag', 'run', '1', 'x')
    expect(tag.code).toBe(1)
    expect(tag.stderr).toBe(`p4lab: cannot open the database ${file} (--db): it is read-only here (no write permission on the file), and this writes to it: make it writable, or copy it where it can be written and use the copy\n`)
    expect(readdirSync(shared)).toEqual(['p.db'])
  })
})
