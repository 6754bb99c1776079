import { accessSync, constants, existsSync, lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const APP_NAME = 'p4lab'

/**
 * The per-user data directory. It matches Electron's app.getPath('userData') for an
 * app named p4lab, so the CLI, the web mode and the desktop app share one database.
 * P4LAB_HOME overrides it (tests, portable installs).
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.P4LAB_HOME) return resolve(env.P4LAB_HOME)
  const home = homedir()
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_NAME)
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), APP_NAME)
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), APP_NAME)
}

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userDataDir(env), 'p4lab.db')
}

function hereDir(): string {
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url))
}

let cachedRoot: string | undefined

/** The installed package's root: the nearest ancestor holding p4lab's package.json. */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot
  let dir = hereDir()
  for (;;) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg)) {
      try {
        if (JSON.parse(readFileSync(pkg, 'utf8')).name === APP_NAME) return (cachedRoot = dir)
      } catch {
        // not ours; keep walking
      }
    }
    const up = dirname(dir)
    if (up === dir) throw new Error(`cannot find p4lab's package.json above ${hereDir()}`)
    dir = up
  }
}

export function resourcesDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.P4LAB_RESOURCES ? resolve(env.P4LAB_RESOURCES) : join(packageRoot(), 'resources')
}

export function workloadsDir(): string {
  return join(resourcesDir(), 'workloads')
}

export function experimentTemplatesDir(): string {
  return join(resourcesDir(), 'experiments')
}

export function rendererDir(): string {
  return join(packageRoot(), 'out', 'renderer')
}

export function packageVersion(): string {
  return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version
}

/**
 * `mkdir -p` one level at a time. Node's recursive mkdir spins at full CPU for ever where a
 * parent exists but the kernel answers ENOENT for its child (under /proc: `--db /proc/x/p4lab.db`);
 * here that is an ENOENT error like any other.
 */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = []
  for (let d = resolve(dir); lstatSync(d, { throwIfNoEntry: false }) === undefined; d = dirname(d)) {
    missing.unshift(d)
    if (dirname(d) === d) break
  }
  for (const d of missing) mkdirSync(d, { mode })
  // As mkdir -p: a file (or a link to nothing) where the folder goes is an error, EEXIST.
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(`EEXIST: ${dir} exists and is not a folder`), { code: 'EEXIST' })
}

/**
 * Why this process cannot write at path, or null when it can. Asked of the kernel (access),
 * so a read-only mount refuses root too.
 */
export function writeDenied(path: string): string | null {
  try {
    accessSync(path, constants.W_OK)
    return null
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === 'EROFS' ? 'a read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'no write permission' : (e as Error).message
  }
}
