// Entry point of `npm run bench`: plain node cannot run TypeScript, and the project has
// no TS runner, so bundle bench/sim.ts with rolldown (vite's bundler, already installed)
// into a temporary ES module, then import it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const entry = join(root, 'bench', process.argv[2] ?? 'sim.ts')
const dir = mkdtempSync(join(tmpdir(), 'p4lab-bench-'))
const out = join(dir, 'bench.mjs')
try {
  await build({
    input: entry,
    platform: 'node',
    logLevel: 'warn',
    output: { file: out, format: 'esm' },
  })
  process.env.P4LAB_ROOT ??= root
  await import(pathToFileURL(out).href)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
