// An imported archive whose saved comparison differs from the one recomputed from its runs says
// where: the first line that differs, as archived and as recomputed, and which p4lab wrote it.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { p4lab } from '../helpers/cli'
import { genuineArchive, relisted, tarGz } from './craft'

it('names the first line of the comparison that differs, both ways, and the p4lab that wrote the archive', async () => {
  const { dir, entries } = await genuineArchive('cmp-differs')
  const saved = String(entries.find((e) => e.path === 'compare/mean-by-load.txt')!.data)
  const lines = saved.split('\n')
  const n = lines.findIndex((l) => l.startsWith('ecmp '))
  expect(n).toBeGreaterThan(0)
  const changed = lines.map((l, i) => (i === n ? l.replace(/^ecmp {2}/, 'ecmp* ') : l)).join('\n')
  const version = JSON.parse(String(entries.find((e) => e.path === 'manifest.json')!.data)).p4labVersion as string
  writeFileSync(join(dir, 'changed.tar.gz'), tarGz(relisted(entries.map((e) => (e.path === 'compare/mean-by-load.txt' ? { ...e, data: changed } : e)))))
  const r = p4lab(['import', 'changed.tar.gz', '--db', 'b.db'], dir)
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain(
    `warning: the comparison recomputed here differs from the one in the archive (written by p4lab ${version}), from line ${n + 1} of compare/mean-by-load.txt:\n` +
      `  archived: ${lines[n].replace(/^ecmp {2}/, 'ecmp* ')}\n` +
      `  here:     ${lines[n]}\n`,
  )
}, 180_000)
