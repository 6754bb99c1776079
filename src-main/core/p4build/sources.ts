// The files a P4 program is made of: the main file and every project file it includes,
// found by following `#include "..."` the way p4c's preprocessor (cpp) does: relative to the
// including file first, then each include directory. `#include <...>` and the architecture
// files (core.p4, v1model.p4, tna.p4, ...) belong to the compiler and are identified by its
// version instead. A quoted include that is on no path is recorded as missing: the compiler
// will say so (or the include sits in a dead #if branch), and the key still changes when it appears.

import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/** Architecture and standard includes the compiler ships; never read from the project. */
export const SYSTEM_INCLUDES = new Set(['core.p4', 'v1model.p4', 'psa.p4', 'pna.p4', 'tna.p4', 't2na.p4', 'ebpf_model.p4'])

export interface SourceFile {
  /** Path relative to the program's root, with '/' (e.g. `hula/v1model/hula.p4`, `include/headers.p4`). */
  path: string
  /** Absolute path on this machine. */
  abs: string
  text: string
  sha256: string
}

export interface ProgramSources {
  /** The directory every source lies under (their deepest common ancestor). */
  root: string
  /** The main file, relative to root. */
  main: string
  /** Main file first, then the includes sorted by path. */
  files: SourceFile[]
  /** Quoted includes found on no path, as `including-file: "name"`, sorted. */
  missing: string[]
}

const INCLUDE = /^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"/gm

function stripBlockComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/\/\/[^\n]*/g, '')
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/')
}

function commonDir(paths: string[]): string {
  let dir = dirname(paths[0])
  for (const p of paths) {
    while (!(p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep))) {
      const up = dirname(dir)
      if (up === dir) break
      dir = up
    }
  }
  return dir
}

/** Reads a program and everything it includes. Throws when the main file cannot be read. */
export function collectSources(mainFile: string, includeDirs: readonly string[] = []): ProgramSources {
  const main = resolve(mainFile)
  if (!existsSync(main) || !statSync(main).isFile()) throw new Error(`cannot read P4 program ${mainFile}: no such file`)
  const seen = new Map<string, string>()
  const missing: Array<{ file: string; name: string }> = []
  const queue = [main]
  while (queue.length > 0) {
    const file = queue.shift()!
    if (seen.has(file)) continue
    const text = readFileSync(file, 'utf8')
    seen.set(file, text)
    for (const m of stripBlockComments(text).matchAll(INCLUDE)) {
      const name = m[1].trim()
      const candidates = isAbsolute(name) ? [name] : [join(dirname(file), name), ...includeDirs.map((d) => resolve(d, name))]
      const found = candidates.find((c) => existsSync(c) && statSync(c).isFile())
      if (found) queue.push(resolve(found))
      else if (!SYSTEM_INCLUDES.has(name)) missing.push({ file, name })
    }
  }
  const root = commonDir([...seen.keys()])
  const rel = (abs: string) => toPosix(relative(root, abs))
  const files = [...seen.entries()].map(([abs, text]) => ({ path: rel(abs), abs, text, sha256: sha256(text) }))
  const mainRel = rel(main)
  files.sort((a, b) => (a.path === mainRel ? -1 : b.path === mainRel ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    root,
    main: mainRel,
    files,
    missing: [...new Set(missing.map((m) => `${rel(m.file)}: "${m.name}"`))].sort(),
  }
}
