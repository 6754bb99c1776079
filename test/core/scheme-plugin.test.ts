// Schemes are plug-ins: a copy of the project without LetFlow (its folders, its registry line,
// its template and its own tests) still builds, lints, typechecks and passes the tests that
// iterate the registry. Slow (a whole build and lint of a copy), so it has a long hang guard.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const SCHEME = 'letflow'
const COPY = ['src-main', 'src-renderer', 'p4', 'resources', 'test', 'eslint-rules', 'scripts', 'bench', 'bin']
const FILES = ['package.json', 'electron.vite.config.ts', 'eslint.config.mjs', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.node.json', 'tsconfig.web.json', 'vitest.config.mts']

// Colour codes, in case a tool prints them anyway.
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g')

const dir = mkdtempSync(join(tmpdir(), 'p4lab-plugin-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } }).replace(ANSI, '')
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${cmd} ${args.join(' ')} failed in the copy without ${SCHEME}:\n${err.stdout ?? ''}${err.stderr ?? ''}`.slice(0, 4000), { cause: e })
  }
}

/** Every file under `d` (relative to the copy) whose path names the scheme. */
function named(d: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(join(dir, d), { withFileTypes: true })) {
    const p = join(d, e.name)
    if (e.name.includes(SCHEME)) out.push(p)
    else if (e.isDirectory()) out.push(...named(p))
  }
  return out
}

test(`without ${SCHEME}: builds, lints, typechecks, and the registry-driven tests pass`, { timeout: 1_500_000 }, () => {
  for (const d of COPY) cpSync(join(ROOT, d), join(dir, d), { recursive: true, filter: (src) => !src.includes('test-artifacts') })
  for (const f of FILES) cpSync(join(ROOT, f), join(dir, f))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))

  // The plug-in: its folders, its one registry line, its template and the tests about it alone.
  expect(existsSync(join(dir, 'src-main/schemes', SCHEME)), `src-main/schemes/${SCHEME}/ exists`).toBe(true)
  expect(existsSync(join(dir, 'p4', SCHEME)), `p4/${SCHEME}/ exists`).toBe(true)
  const registry = join(dir, 'src-main/schemes/registry.ts')
  const lines = readFileSync(registry, 'utf8').split('\n')
  const mine = lines.filter((l) => l.includes(`'./${SCHEME}'`))
  expect(mine).toHaveLength(1)
  writeFileSync(registry, lines.filter((l) => !l.includes(`'./${SCHEME}'`)).join('\n'))
  const removed = [`src-main/schemes/${SCHEME}`, `p4/${SCHEME}`, ...named('resources/experiments'), ...named('test')]
  for (const p of removed) rmSync(join(dir, p), { recursive: true, force: true })
  const left = run('sh', ['-c', `grep -rli ${SCHEME} src-main src-renderer p4 resources eslint-rules scripts || true`]).trim()
  expect(left, 'files outside the plug-in that still name it').toBe('')

  run('npx', ['electron-vite', 'build'])
  run('npx', ['eslint', '.'])
  run('npx', ['tsc', '--noEmit', '-p', 'tsconfig.node.json'])
  run('npx', ['vue-tsc', '--noEmit', '-p', 'tsconfig.web.json'])
  const out = run('npx', ['vitest', 'run', 'test/controlplane/', 'test/p4/', 'test/core/spec.test.ts', 'test/core/schemes-list.test.ts', 'test/telemetry/vocabulary.test.ts'])
  expect(out).toMatch(/Test Files\s+\d+ passed/)
  expect(out).not.toMatch(/\d+ failed/)
})
