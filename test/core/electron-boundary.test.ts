// The core must run under plain Node: only the shell and the preload may import electron.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/start'

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

describe('electron boundary', () => {
  it('no file under src-main but the shell and the preload imports electron', () => {
    const importsElectron = /(from\s+['"]electron['"])|(require\(\s*['"]electron['"]\s*\))|(import\(\s*['"]electron['"]\s*\))/
    const offenders = files(join(ROOT, 'src-main'))
      .map((f) => relative(ROOT, f))
      .filter((f) => !f.startsWith('src-main/electron/') && !f.startsWith('src-main/preload/'))
      .filter((f) => importsElectron.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(offenders).toEqual([])
    // And the check itself sees the shell's import.
    expect(importsElectron.test(readFileSync(join(ROOT, 'src-main/electron/main.ts'), 'utf8'))).toBe(true)
  })

  it('the built CLI bundle and the simulator worker do not load electron', () => {
    for (const f of ['cli.js', 'sim-worker.js']) {
      const text = readFileSync(join(ROOT, 'out', 'main', f), 'utf8')
      expect(text).not.toMatch(/require\(["']electron["']\)/)
    }
  })

  it('the simulator worker is one file that loads only Node built-ins: no chunk it shares with the app can change under it', () => {
    const text = readFileSync(join(ROOT, 'out', 'main', 'sim-worker.js'), 'utf8')
    const loads = [...text.matchAll(/require\(\s*["']([^"']+)["']\s*\)|\bfrom\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3])
    expect(loads.length).toBeGreaterThan(0)
    expect(loads.filter((m) => !m.startsWith('node:'))).toEqual([])
  })
})
