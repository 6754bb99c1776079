// The names a P4 program declares at top level, and the constants it never uses: two checks the
// real compilers make that p4lab can make without them. p4c rejects a program that declares a name
// its architecture file already declares ("Ingress duplicates Ingress": v1model.p4 declares the
// control type Ingress), and warns about every constant nothing refers to ([--Wwarn=unused]).
// Like declarations.ts, a scan of the constructs P4_16 programs use, not a parser.

import { preprocess } from './preprocess'
import { matching, skipAngles, skipAnnotations, stripComments, tokenize, type Tok } from './tokens'

export type TopLevelKind =
  | 'parser'
  | 'control'
  | 'package'
  | 'extern'
  | 'function'
  | 'header'
  | 'header_union'
  | 'struct'
  | 'enum'
  | 'typedef'
  | 'const'
  | 'action'
  | 'match_kind'
  | 'instance'

export interface TopLevelName {
  kind: TopLevelKind
  name: string
}

export interface ReadOptions {
  /** The file's path, as include paths are resolved from it. */
  fileName?: string
  /** Names defined for the preprocessor (a build's -D flags). */
  defines?: Iterable<string>
}

/** Preprocesses and tokenizes a program; `macros` receives its object-like #defines. */
export function programTokens(
  source: string,
  includes: (path: string, from: string) => string,
  options: ReadOptions = {},
  macros?: Map<string, string>,
): Tok[] {
  const text = preprocess(source, options.fileName ?? 'main.p4', includes, options.defines ?? [], macros)
  return tokenize(stripComments(text))
}

/**
 * Every name declared at top level, in order: type declarations (parser, control, package, extern,
 * header, struct, enum, typedef), constants, actions, extern functions, match_kind members and
 * instances (`V1Switch(...) main;`). Error members are left out: they live in `error`'s namespace.
 */
export function topLevelNames(toks: Tok[]): TopLevelName[] {
  const out: TopLevelName[] = []
  let i = 0
  while (i < toks.length) {
    i = skipAnnotations(toks, i)
    const t = toks[i]
    if (t === undefined) break
    if (t === 'parser' || t === 'control' || t === 'package') {
      out.push({ kind: t, name: toks[i + 1] })
      i = skipBlockOrSemicolon(toks, i)
    } else if (t === 'extern') {
      i = readExtern(toks, i, out)
    } else if (t === 'header' || t === 'header_union' || t === 'struct' || t === 'enum') {
      const open = toks.indexOf('{', i)
      out.push({ kind: t, name: toks[open - 1] })
      i = matching(toks, open) + 1
    } else if (t === 'typedef' || t === 'type') {
      const end = toks.indexOf(';', i)
      out.push({ kind: 'typedef', name: toks[end - 1] })
      i = end + 1
    } else if (t === 'const') {
      const end = toks.indexOf(';', i)
      const eq = toks.indexOf('=', i)
      out.push({ kind: 'const', name: toks[eq - 1] })
      i = end + 1
    } else if (t === 'action') {
      out.push({ kind: 'action', name: toks[i + 1] })
      i = matching(toks, matching(toks, i + 2) + 1) + 1
    } else if (t === 'match_kind') {
      const open = i + 1
      const close = matching(toks, open)
      for (const m of toks.slice(open + 1, close)) if (m !== ',') out.push({ kind: 'match_kind', name: m })
      i = close + 1
    } else if (t === 'error') {
      i = matching(toks, i + 1) + 1
    } else if (t === '{') {
      i = matching(toks, i) + 1
    } else if (/^[A-Za-z_]\w*$/.test(t)) {
      i = readInstance(toks, i, out)
    } else {
      i++
    }
  }
  return out
}

/** After a parser/control/package: its body `{...}`, or the `;` of a type declaration. */
function skipBlockOrSemicolon(toks: Tok[], i: number): number {
  for (let k = i; k < toks.length; k++) {
    if (toks[k] === ';') return k + 1
    if (toks[k] === '{') return matching(toks, k) + 1
    if (toks[k] === '(' || toks[k] === '[') k = matching(toks, k)
    else if (toks[k] === '<') k = skipAngles(toks, k) - 1
  }
  return toks.length
}

/** `extern Name<T> { ... }` (an extern object) or `extern R name<T>(...);` (an extern function). */
function readExtern(toks: Tok[], i: number, out: TopLevelName[]): number {
  const paren = toks.indexOf('(', i)
  const brace = toks.indexOf('{', i)
  if (brace >= 0 && (paren < 0 || brace < paren)) {
    out.push({ kind: 'extern', name: toks[i + 1] })
    return matching(toks, brace) + 1
  }
  let k = paren - 1
  if (toks[k] === '>') {
    // Back over the type parameters to the function's name.
    let depth = 0
    for (; k > i; k--) {
      if (toks[k] === '>') depth++
      else if (toks[k] === '<' && --depth === 0) break
    }
    k--
  }
  out.push({ kind: 'function', name: toks[k] })
  return toks.indexOf(';', matching(toks, paren)) + 1
}

/** `Type(args) name;` or `Type<T>(args) name;` at top level. */
function readInstance(toks: Tok[], i: number, out: TopLevelName[]): number {
  let k = i + 1
  if (toks[k] === '<') k = skipAngles(toks, k)
  if (toks[k] !== '(') return i + 1
  const close = matching(toks, k)
  if (toks[close + 2] === ';' && /^[A-Za-z_]\w*$/.test(toks[close + 1])) {
    out.push({ kind: 'instance', name: toks[close + 1] })
    return close + 3
  }
  return close + 1
}

export interface UnusedConstant {
  name: string
}

/**
 * The constants nothing refers to: a constant counts as used when its name appears anywhere but
 * in its own declaration or after a '.', where a use inside a macro body counts where the macro is
 * used, and a use inside the value of an unused constant does not count. Table properties written
 * `const default_action = ...` / `const entries = ...` are not constants. A declaration of
 * something else with the same name (a field, a parameter) still counts as a use.
 */
export function unusedConstants(toks: Tok[], macros: Map<string, string> = new Map()): string[] {
  const expanded = expandMacros(toks, macros)
  interface Decl { name: string; nameAt: number; start: number; end: number }
  const decls: Decl[] = []
  for (let i = 0; i < expanded.length; i++) {
    if (expanded[i] !== 'const') continue
    const end = expanded.indexOf(';', i)
    const eq = expanded.indexOf('=', i)
    if (eq < 0 || eq > end || eq === i + 2) continue
    decls.push({ name: expanded[eq - 1], nameAt: eq - 1, start: i, end })
  }
  const unused = new Set<string>()
  for (let changed = true; changed; ) {
    changed = false
    const inUnused = new Set<number>()
    for (const d of decls) if (unused.has(d.name)) for (let k = d.start; k <= d.end; k++) inUnused.add(k)
    for (const d of decls) {
      if (unused.has(d.name)) continue
      // After a '.', the name is a field or method of something else, not the constant.
      const used = expanded.some((t, k) => t === d.name && k !== d.nameAt && expanded[k - 1] !== '.' && !inUnused.has(k))
      if (!used) {
        unused.add(d.name)
        changed = true
      }
    }
  }
  return decls.map((d) => d.name).filter((n) => unused.has(n))
}

/** Replaces each use of an object-like macro by its body's tokens (bodies may use other macros). */
function expandMacros(toks: Tok[], macros: Map<string, string>, depth = 0): Tok[] {
  if (macros.size === 0 || depth > 8) return toks
  let any = false
  const out: Tok[] = []
  for (const t of toks) {
    const body = macros.get(t)
    if (body === undefined) {
      out.push(t)
      continue
    }
    any = true
    out.push(...tokenize(stripComments(body)))
  }
  return any ? expandMacros(out, macros, depth + 1) : out
}
