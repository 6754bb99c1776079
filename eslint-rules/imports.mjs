// What a source file imports, and which file each import names. Shared by the layer rule and the
// cycle rule so both see the same edges: every static import and re-export, type-only ones too,
// dynamic import('...'), typeof import('...') and require('...').
import { readFileSync, statSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import ts from 'typescript'

const SCRIPT_BLOCK = /<script\b[^>]*>([\s\S]*?)<\/script>/g

/** Each import of `text` as { spec, start, end } (offsets into `text`). A .vue file's imports are its script blocks'. */
export function importsOf(text, fileName) {
  if (!fileName.endsWith('.vue')) return scan(text, 0)
  const out = []
  for (const m of text.matchAll(SCRIPT_BLOCK)) out.push(...scan(m[1], m.index + m[0].indexOf('>') + 1))
  return out
}

function scan(text, offset) {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => ({ spec: f.fileName, start: offset + f.pos, end: offset + f.end }))
}

const EXTENSIONS = ['.ts', '.mts', '.cts', '.d.ts', '.tsx', '.vue', '.js', '.mjs', '.cjs', '.json']

function isFile(p) {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

function resolvePath(base) {
  if (isFile(base)) return base
  for (const ext of EXTENSIONS) if (isFile(base + ext)) return base + ext
  // TypeScript lets './x.js' name './x.ts'.
  const js = /\.(m|c)?js$/.exec(base)
  if (js) {
    const stem = base.slice(0, -js[0].length)
    for (const ext of ['.ts', '.mts', '.cts', '.tsx']) if (isFile(stem + ext)) return stem + ext
  }
  for (const ext of EXTENSIONS) if (isFile(join(base, 'index' + ext))) return join(base, 'index' + ext)
  return null
}

/**
 * What `spec`, imported from `fromFile`, names:
 *   { kind: 'file', file }      a file of this repository (relative path or an alias)
 *   { kind: 'builtin', name }   a Node builtin (node:fs, fs, ...)
 *   { kind: 'package', name }   an npm package
 *   { kind: 'unresolved' }      a relative or aliased path that names no file
 * `aliases` maps a prefix such as '@contract' to an absolute folder.
 */
export function resolveImport(spec, fromFile, aliases) {
  const bare = spec.replace(/[?#].*$/, '')
  if (bare.startsWith('.') || isAbsolute(bare)) {
    const file = resolvePath(resolve(dirname(fromFile), bare))
    return file ? { kind: 'file', file } : { kind: 'unresolved' }
  }
  for (const [prefix, folder] of Object.entries(aliases)) {
    if (bare === prefix || bare.startsWith(prefix + '/')) {
      const file = resolvePath(join(folder, bare.slice(prefix.length)))
      return file ? { kind: 'file', file } : { kind: 'unresolved' }
    }
  }
  if (bare.startsWith('node:') || isBuiltin(bare)) return { kind: 'builtin', name: bare }
  const parts = bare.split('/')
  return { kind: 'package', name: bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] }
}

/**
 * The "paths" of these tsconfig files, such as { "@contract/*": ["./src-main/contract/*"] }, as
 * { '@contract': '/abs/src-main/contract' }. Two files may name one alias only for one folder.
 */
export function aliasesFromTsconfig(...tsconfigFiles) {
  const out = {}
  for (const file of tsconfigFiles) {
    const { config, error } = ts.readConfigFile(file, ts.sys.readFile)
    if (error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`)
    for (const [key, targets] of Object.entries(config.compilerOptions?.paths ?? {})) {
      if (!key.endsWith('/*') || targets.length !== 1 || !targets[0].endsWith('/*')) {
        throw new Error(`${file}: the import rules understand only "prefix/*": ["folder/*"] paths, not "${key}"`)
      }
      const prefix = key.slice(0, -2)
      const folder = resolve(dirname(file), targets[0].slice(0, -2))
      if (out[prefix] !== undefined && out[prefix] !== folder) {
        throw new Error(`${file}: "${key}" names ${folder}, but another tsconfig names ${out[prefix]}; make them agree`)
      }
      out[prefix] = folder
    }
  }
  return out
}

const fileCache = new Map()

/** The repository files `file` imports, as read from disk (cached by modification time). */
export function fileEdgesOnDisk(file, aliases) {
  let mtime
  try {
    mtime = statSync(file).mtimeMs
  } catch {
    return []
  }
  const hit = fileCache.get(file)
  if (hit && hit.mtime === mtime) return hit.edges
  const text = readFileSync(file, 'utf8')
  const edges = fileEdges(text, file, aliases)
  fileCache.set(file, { mtime, edges })
  return edges
}

/** The repository files `text` (the source of `file`) imports. */
export function fileEdges(text, file, aliases) {
  const out = []
  for (const imp of importsOf(text, file)) {
    const r = resolveImport(imp.spec, file, aliases)
    if (r.kind === 'file' && !r.file.includes('/node_modules/')) out.push({ ...imp, file: r.file })
  }
  return out
}
