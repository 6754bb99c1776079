// Schemes are plug-ins: a copy of the project without one scheme (its folders, its one registry
// line, its template and the tests about it alone) still builds, lints, typechecks and passes the
// test suite. `npm test` runs this after the suite (posttest); `node scripts/scheme-plugin.mjs
// [scheme [test filters…]]` runs it alone. Exits non-zero, naming the step, when the copy fails one.
//
// The copy runs every test except those of the layers below the schemes, which the suite has
// just run on the whole tree and which take a third of its time: the SSH transport and its
// faults, the session limits, the host agent, the Electron shell, the HTTP server, the testbed
// store and the fuzzers (NOT_SCHEMES). Whatever reads the registry (spec, simulator, control
// plane, P4 programs, pollers, UI, CLI, archives, sweeps, Slurm) runs in the copy.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const ROOT = join(import.meta.dirname, '..')
const SCHEME = process.argv[2] ?? 'letflow'
/** Test files that exercise no scheme-specific code: skipped in the copy (see above). */
const NOT_SCHEMES = ['test/ssh/**', 'test/agent/**', 'test/electron/**', 'test/server/**', 'test/testbeds/**', 'test/fuzz/**', 'test/targets/bmv2-ssh-faults.test.ts', 'test/targets/bmv2-sessions.test.ts']
/** Test paths or filters after the scheme run only those (for trying the script); none runs the whole suite. */
const FILTERS = process.argv.slice(3)
const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }

function fail(message) {
  console.error(`scheme-plugin: ${message}`)
  process.exit(1)
}

/** Every path under `d` (relative to the copy) whose name holds the scheme's. */
function named(dir, d) {
  const out = []
  if (!existsSync(join(dir, d))) return out
  for (const e of readdirSync(join(dir, d), { withFileTypes: true })) {
    const p = join(d, e.name)
    if (e.name.includes(SCHEME)) out.push(p)
    else if (e.isDirectory()) out.push(...named(dir, p))
  }
  return out
}

function step(dir, what, cmd, args) {
  console.log(`scheme-plugin: without ${SCHEME}: ${what}`)
  const r = spawnSync(cmd, args, { cwd: dir, env, stdio: 'inherit' })
  if (r.status !== 0) fail(`${what} failed in the copy without ${SCHEME} (${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal})`)
}

const dir = mkdtempSync(join(tmpdir(), 'p4lab-plugin-'))
try {
  // The project as committed plus what is not yet (but not what git ignores: node_modules, out…).
  // node_modules is linked below, never copied: a symlinked one is not matched by `node_modules/`.
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && f !== 'node_modules' && !f.startsWith('node_modules/'))
  for (const f of files) {
    if (!existsSync(join(ROOT, f))) continue // deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    cpSync(join(ROOT, f), join(dir, f))
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))

  for (const d of [`src-main/schemes/${SCHEME}`, `p4/${SCHEME}`]) if (!existsSync(join(dir, d))) fail(`${d}/ does not exist: is '${SCHEME}' a scheme?`)
  const registry = join(dir, 'src-main/schemes/registry.ts')
  const lines = readFileSync(registry, 'utf8').split('\n')
  const mine = lines.filter((l) => l.includes(`'./${SCHEME}'`))
  if (mine.length !== 1) fail(`expected one registry line naming './${SCHEME}', found ${mine.length}`)
  writeFileSync(registry, lines.filter((l) => !l.includes(`'./${SCHEME}'`)).join('\n'))
  const removed = [`src-main/schemes/${SCHEME}`, `p4/${SCHEME}`, ...named(dir, 'resources/experiments'), ...named(dir, 'test')]
  for (const p of removed) rmSync(join(dir, p), { recursive: true, force: true })
  console.log(`scheme-plugin: removed ${removed.join(', ')} and the registry line: ${mine[0].trim()}`)

  const grep = spawnSync('grep', ['-rli', SCHEME, 'src-main', 'src-renderer', 'p4', 'resources', 'eslint-rules', 'scripts', 'bench'], { cwd: dir, encoding: 'utf8' })
  const left = grep.stdout.split('\n').filter((f) => f && f !== 'scripts/scheme-plugin.mjs')
  if (left.length > 0) fail(`files outside the plug-in still name it:\n  ${left.join('\n  ')}`)

  step(dir, 'build', 'npm', ['run', 'build'])
  step(dir, 'lint', 'npx', ['eslint', '.'])
  step(dir, 'typecheck (node)', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.node.json'])
  step(dir, 'typecheck (vue)', 'npx', ['vue-tsc', '--noEmit', '-p', 'tsconfig.web.json'])
  const exclude = NOT_SCHEMES.flatMap((g) => ['--exclude', g])
  step(dir, FILTERS.length ? `the tests ${FILTERS.join(' ')}` : 'the test suite (see NOT_SCHEMES)', 'npx', ['vitest', 'run', ...exclude, ...FILTERS])
  console.log(`scheme-plugin: without ${SCHEME}, the project builds, lints, typechecks and passes its tests`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
