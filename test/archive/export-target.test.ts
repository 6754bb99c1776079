// Where an export may write: only where the user asked. `p4lab export` creates no folders and
// replaces an existing file only with --force; the contract's archive.export takes no path
// from the page at all (a core without the desktop shell's dialog refuses it).
import { mkdirSync, mkdtempSync, readFileSync, statSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { createDispatch } from '../../src-main/core'
import { TINY_YAML, tempCore } from '../helpers/core'
import { p4lab } from '../helpers/cli'

describe('p4lab export writes only where asked', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-export-target-'))
    writeFileSync(join(dir, 'tiny.yaml'), TINY_YAML)
    const r = p4lab(['run', 'tiny.yaml', '--db', 'a.db'], dir)
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)

  it('refuses to overwrite an existing file without --force, and replaces it with --force', () => {
    const file = join(dir, 'mine.tar.gz')
    writeFileSync(file, 'a file the user cares about\n')
    const refused = p4lab(['export', 'tiny', '--db', 'a.db', '-o', file], dir)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`${file} already exists`)
    expect(refused.stderr).toContain('--force')
    expect(readFileSync(file, 'utf8')).toBe('a file the user cares about\n')
    expect(statSync(dir).isDirectory()).toBe(true)

    const forced = p4lab(['export', 'tiny', '--db', 'a.db', '-o', file, '--force'], dir)
    expect(forced.code, forced.stderr).toBe(0)
    expect([...readFileSync(file).subarray(0, 2)]).toEqual([0x1f, 0x8b])
  }, 120_000)

  it('creates no folder: a missing one is a clear error, and so is a folder given as the file', () => {
    const missing = join(dir, 'no', 'such', 'folder', 'x.tar.gz')
    const r = p4lab(['export', 'tiny', '--db', 'a.db', '-o', missing], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`the folder ${join(dir, 'no', 'such', 'folder')} does not exist`)
    expect(existsSync(join(dir, 'no'))).toBe(false)

    mkdirSync(join(dir, 'afolder'))
    const d = p4lab(['export', 'tiny', '--db', 'a.db', '-o', join(dir, 'afolder')], dir)
    expect(d.code).toBe(1)
    expect(d.stderr).toContain('is a folder')

    const fine = p4lab(['export', 'tiny', '--db', 'a.db', '-o', join(dir, 'afolder', 'tiny.tar.gz')], dir)
    expect(fine.code, fine.stderr).toBe(0)
  }, 120_000)

  it('takes no path from the page: archive.export and archive.import have no file to give', async () => {
    const { core, dir: home } = tempCore()
    try {
      const exp = core.findOrCreateExperiment(TINY_YAML, null)
      const dispatch = createDispatch(core.handlers)
      const target = join(home, 'written-by-the-page.tar.gz')
      const withPath = await dispatch('archive.export', { experimentId: exp.id, file: target })
      expect(withPath.ok).toBe(false)
      expect(existsSync(target)).toBe(false)
      // Without the desktop shell's dialog (web mode), the method says where exports go instead.
      const plain = await dispatch('archive.export', { experimentId: exp.id })
      expect(plain).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
      expect(JSON.stringify(plain)).toMatch(/download/)
      expect((await dispatch('archive.import', { file: '/etc/passwd' })).ok).toBe(false)
    } finally {
      core.opts.store.close()
    }
  })
})
