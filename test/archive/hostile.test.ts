// Hostile archives are refused, with a non-zero exit and a reason naming the entry, before
// anything is written outside the private extraction directory, and before the database
// is even opened. Each case is its own test.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { ArchiveRefusedError, importArchive, prepareImport } from '../../src-main/core/archive'
import { openStore } from '../../src-main/core/store'
import { p4lab } from '../helpers/cli'
import { genuineArchive, relisted, tarGz, type CraftEntry } from './craft'


let dir: string
/** The entries of a genuine archive, to build hostile ones from. */
let genuine: CraftEntry[]

beforeAll(async () => {
  ;({ dir, entries: genuine } = await genuineArchive('hostile-base'))
  expect(genuine.map((e) => e.path)).toContain('manifest.json')
}, 180_000)


/** A name in the shared temp directory that an escaping entry would create. */
function escapeName(): string {
  return `p4lab-escaped-${randomBytes(6).toString('hex')}.txt`
}

/** Runs `p4lab import` on the archive; checks it was refused naming `entry`, wrote no database, and returns stderr. */
function refuse(name: string, entries: CraftEntry[], entry: RegExp): string {
  const file = join(dir, `${name}.tar.gz`)
  writeFileSync(file, tarGz(entries))
  const db = join(dir, `${name}.db`)
  const r = p4lab(['import', file, '--db', db], dir)
  expect(r.code, r.stdout).toBe(1)
  expect(r.stderr).toMatch(/archive refused/)
  expect(r.stderr).toMatch(entry)
  expect(existsSync(db), 'the database must not even be created').toBe(false)
  return r.stderr
}

describe('p4lab import refuses hostile archives', () => {
  it('accepts the genuine archive (the baseline the hostile ones are made from)', () => {
    writeFileSync(join(dir, 'rebuilt.tar.gz'), tarGz(genuine))
    const r = p4lab(['import', join(dir, 'rebuilt.tar.gz'), '--db', join(dir, 'ok.db')], dir)
    expect(r.code, r.stderr).toBe(0)
  })

  it("refuses an entry with '..' that would land beside the destination", () => {
    const name = escapeName()
    const stderr = refuse('dotdot', [{ path: `../${name}`, data: 'pwned' }, ...genuine], /\.\..*leave the destination/)
    expect(stderr).toContain(name)
    expect(existsSync(join(tmpdir(), name))).toBe(false)
  })

  it("refuses '..' hidden inside a path", () => {
    const name = escapeName()
    refuse('dotdot-inner', [...genuine, { path: `data/../../${name}`, data: 'pwned' }], /data\/\.\.\/\.\./)
    expect(existsSync(join(tmpdir(), name))).toBe(false)
  })

  it('refuses an absolute path', () => {
    const target = join(tmpdir(), escapeName())
    refuse('absolute', [...genuine, { path: target, data: 'pwned' }], /an absolute path/)
    expect(existsSync(target)).toBe(false)
  })

  it('refuses a symlink, and so a file written through it', () => {
    const outside = mkdtempSync(join(tmpdir(), 'p4lab-outside-'))
    refuse('symlink', [{ path: 'logs', type: '2', linkpath: outside }, { path: 'logs/run-1.log', data: 'pwned' }, ...genuine], /"logs".*a link/)
    expect(existsSync(join(outside, 'run-1.log'))).toBe(false)
  })

  it('refuses a hard link', () => {
    refuse('hardlink', [...genuine, { path: 'data/passwd', type: '1', linkpath: '/etc/passwd' }], /"data\/passwd".*a link/)
  })

  it('refuses more entries than the limit (counted while streaming), even when the manifest lists them all', async () => {
    const many: CraftEntry[] = Array.from({ length: 50 }, (_, i) => ({ path: `junk/${i}.txt`, data: 'x' }))
    const file = join(dir, 'many.tar.gz')
    writeFileSync(file, tarGz(relisted([...genuine, ...many])))
    await expect(prepareImport(file, { maxEntries: 30, maxBytes: 1e9 })).rejects.toThrow(/more than 30 entries/)
  })

  it('refuses an archive that decompresses past the byte limit (a zip bomb), before writing it all', async () => {
    const file = join(dir, 'bomb.tar.gz')
    writeFileSync(file, tarGz(relisted([...genuine, { path: 'data/zeros.bin', data: Buffer.alloc(64 * 1024 * 1024) }])))
    expect(readFileSync(file).length).toBeLessThan(1024 * 1024)
    const err = await prepareImport(file, { maxEntries: 1000, maxBytes: 16 * 1024 * 1024 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ArchiveRefusedError)
    expect((err as Error).message).toMatch(/zeros\.bin.*more than 16777216 bytes|decompresses to more than/)
  })

  it('refuses an archive with no manifest', () => {
    refuse('no-manifest', genuine.filter((e) => e.path !== 'manifest.json'), /manifest\.json.*missing/)
  })

  it('refuses a manifest that is not JSON', () => {
    refuse('bad-json', genuine.map((e) => (e.path === 'manifest.json' ? { ...e, data: '{ "format": ' } : e)), /manifest\.json.*not valid JSON/)
  })

  it('refuses a manifest of the wrong shape', () => {
    const m = JSON.parse(String(genuine.find((e) => e.path === 'manifest.json')!.data))
    m.files[0].sha256 = 'not-a-hash'
    refuse('bad-shape', genuine.map((e) => (e.path === 'manifest.json' ? { ...e, data: JSON.stringify(m) } : e)), /manifest\.json.*malformed: files\.0\.sha256/)
  })

  it('refuses a manifest listing a path outside the archive', () => {
    const m = JSON.parse(String(genuine.find((e) => e.path === 'manifest.json')!.data))
    m.files.push({ path: '../../etc/passwd', sha256: '0'.repeat(64), bytes: 1 })
    refuse('manifest-path', genuine.map((e) => (e.path === 'manifest.json' ? { ...e, data: JSON.stringify(m) } : e)), /manifest\.json.*malformed/)
  })

  it('refuses a changed file, naming it', () => {
    const changed = genuine.map((e) => (e.path === 'data/runs.csv' ? { ...e, data: String(e.data).replace('done', 'DONE') } : e))
    refuse('changed', changed, /"data\/runs\.csv".*sha256.*changed after export/)
  })

  it('refuses a changed plot, naming it (plots/ are hashed like every other file)', () => {
    expect(genuine.map((e) => e.path)).toContain('plots/mean-fct-by-load.svg')
    const changed = genuine.map((e) => (e.path === 'plots/mean-fct-by-load.svg' ? { ...e, data: String(e.data).replace('Mean FCT', 'Mean FTC') } : e))
    refuse('changed-plot', changed, /"plots\/mean-fct-by-load\.svg".*sha256.*changed after export/)
  })

  it('refuses an archive whose plot was removed', () => {
    refuse('missing-plot', genuine.filter((e) => e.path !== 'plots/p99-fct-by-load.svg'), /"plots\/p99-fct-by-load\.svg".*missing from the archive/)
  })

  it('refuses a file the manifest does not list', () => {
    refuse('extra', [...genuine, { path: 'data/extra.csv', data: 'a,b\r\n' }], /"data\/extra\.csv".*not in manifest\.json/)
  })

  it('refuses a file that is not gzip', () => {
    const file = join(dir, 'plain.tar.gz')
    writeFileSync(file, 'just text')
    const r = p4lab(['import', file, '--db', join(dir, 'plain.db')], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/not a gzip file/)
  })

  it('says an archive cut short is cut short, not that it is no gzip file', () => {
    const whole = tarGz(genuine)
    const file = join(dir, 'cut.tar.gz')
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)))
    const db = join(dir, 'cut.db')
    const r = p4lab(['import', file, '--db', db], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${file}: archive refused: it is cut short: its gzip stream ends after ${Math.floor(whole.length / 2)} bytes (a download or a copy that did not finish?)`)
    expect(r.stderr).not.toMatch(/not a gzip file/)
    expect(existsSync(db), 'the database must not even be created').toBe(false)
  })

  it('names a folder given as the archive, rather than a bare EISDIR', () => {
    const folder = join(dir, 'not-an-archive')
    mkdirSync(folder, { recursive: true })
    const r = p4lab(['import', folder, '--db', join(dir, 'folder.db')], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${folder} is a folder, not an archive (a .tar.gz written by p4lab export)`)
    expect(r.stderr).not.toMatch(/EISDIR/)
  })

  it('writes nothing to the target database when the core API refuses', async () => {
    const file = join(dir, 'api.tar.gz')
    writeFileSync(file, tarGz([{ path: '../x', data: 'x' }]))
    const store = openStore(join(dir, 'api.db'))
    try {
      await expect(importArchive({ file, store, dataDir: dir })).rejects.toBeInstanceOf(ArchiveRefusedError)
      expect(store.listExperiments()).toHaveLength(0)
    } finally {
      store.close()
    }
  })
})
