#!/usr/bin/env node
// `npm start`: the desktop app when an Electron binary is installed, otherwise the web
// mode (`p4lab serve`), which prints the URL to open in a browser.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)

function electronBinary() {
  // Read what the electron package records instead of require('electron'): requiring it
  // starts a download when the binary is missing, and that cannot succeed offline.
  let pkgDir
  try {
    pkgDir = dirname(require.resolve('electron/package.json'))
  } catch {
    return null
  }
  const pathFile = join(pkgDir, 'path.txt')
  if (!existsSync(pathFile)) return null
  const rel = readFileSync(pathFile, 'utf8').trim()
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkgDir, 'dist')
  const binary = join(dist, rel)
  return existsSync(binary) ? binary : null
}

function run(cmd, args) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' })
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}

const passThrough = process.argv.slice(2)
if (!existsSync(join(root, 'out', 'main', 'cli.js'))) {
  console.error("p4lab: the app is not built yet; run 'npm install' (or 'npm run build') first")
  process.exit(1)
}
const binary = process.env.P4LAB_WEB ? null : electronBinary()
if (binary) {
  run(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'preview', ...passThrough])
} else {
  console.log('p4lab: no Electron binary here, starting the web mode instead (set P4LAB_WEB=1 to choose it).')
  run(process.execPath, [join(root, 'bin', 'p4lab.cjs'), 'serve', ...passThrough])
}
