// scripts/scheme-plugin.mjs copies the project as git lists it and links node_modules into the
// copy. A node_modules that git does not ignore (a symlink, which `node_modules/` in .gitignore
// does not match, as in a worktree sharing another's packages) must not be copied first: the
// link would then exist already. The script is run on a small repository of its own, with a
// scheme name that is not one, so it stops at its first check instead of building anything.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'

const dir = mkdtempSync(join(tmpdir(), 'p4lab-plugin-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('copies the tree without its node_modules link and reaches its own checks', () => {
  mkdirSync(join(dir, 'scripts'))
  copyFileSync(join(__dirname, '../../scripts/scheme-plugin.mjs'), join(dir, 'scripts/scheme-plugin.mjs'))
  writeFileSync(join(dir, 'README.md'), 'a project\n')
  mkdirSync(join(dir, 'packages'))
  symlinkSync(join(dir, 'packages'), join(dir, 'node_modules'))
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir })
  git('init', '-q')
  git('add', 'README.md', 'scripts')
  git('commit', '-qm', 'base')
  const r = spawnSync(process.execPath, ['scripts/scheme-plugin.mjs', 'nosuch'], { cwd: dir, encoding: 'utf8' })
  expect(r.stderr).not.toMatch(/EEXIST/)
  expect(r.stderr).toContain("scheme-plugin: src-main/schemes/nosuch/ does not exist: is 'nosuch' a scheme?")
  expect(r.status).toBe(1)
})
