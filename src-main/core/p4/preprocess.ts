// The part of the C preprocessor p4lab's P4 programs use, for the declaration reader: quoted
// includes (inlined, recursively), #define / #undef of names, and #ifdef / #ifndef / #if
// defined(NAME) / #elif / #else / #endif, so a program read with a set of defines (a build's
// -D flags) shows exactly the declarations the compiler would see. Macro bodies are not
// expanded (the reader needs none); directive lines, continuation lines included, read as blank.
// A caller that needs to know what a macro stands for (the unused-constant check: a constant
// used only inside a macro body is used) passes `macros` to collect the object-like ones.

/** Architecture includes are the compiler's; only the project's own includes are read. */
const SYSTEM_INCLUDES = new Set(['core.p4', 'v1model.p4', 'tna.p4', 't2na.p4'])

export function preprocess(
  source: string,
  file: string,
  includes: (path: string, from: string) => string,
  defines: Iterable<string> = [],
  /** Filled with the body of every object-like #define that is active, by name. */
  macros?: Map<string, string>,
): string {
  return run(source, file, includes, new Set(defines), new Set(), macros)
}

interface Frame {
  /** Lines here are kept. */
  active: boolean
  /** A branch of this #if chain has been taken. */
  taken: boolean
  /** The enclosing region is active. */
  outer: boolean
}

function run(
  source: string,
  file: string,
  includes: (path: string, from: string) => string,
  defined: Set<string>,
  seen: Set<string>,
  macros: Map<string, string> | undefined,
): string {
  const lines = source.split('\n')
  const out: string[] = []
  const stack: Frame[] = []
  const active = () => stack.length === 0 || stack[stack.length - 1].active
  for (let i = 0; i < lines.length; i++) {
    const m = /^[ \t]*#[ \t]*(\w+)(.*)$/.exec(lines[i])
    if (!m) {
      out.push(active() ? lines[i] : '')
      continue
    }
    let rest = m[2]
    const first = i
    while (rest.endsWith('\\') && i + 1 < lines.length) rest = `${rest.slice(0, -1)} ${lines[++i]}`
    const blanks = () => {
      for (let k = first; k <= i; k++) out.push('')
    }
    const arg = rest.replace(/\/\/.*$|\/\*.*?\*\//g, '').trim()
    const name = /^\(?\s*(\w+)/.exec(arg)?.[1] ?? ''
    switch (m[1]) {
      case 'ifdef':
      case 'ifndef': {
        const cond = m[1] === 'ifdef' ? defined.has(name) : !defined.has(name)
        const outer = active()
        stack.push({ active: outer && cond, taken: cond, outer })
        blanks()
        break
      }
      case 'if': {
        const cond = evalCondition(arg, defined)
        const outer = active()
        stack.push({ active: outer && cond, taken: cond, outer })
        blanks()
        break
      }
      case 'elif': {
        const top = stack[stack.length - 1]
        if (top) {
          const cond = !top.taken && evalCondition(arg, defined)
          top.active = top.outer && cond
          top.taken ||= cond
        }
        blanks()
        break
      }
      case 'else': {
        const top = stack[stack.length - 1]
        if (top) {
          top.active = top.outer && !top.taken
          top.taken = true
        }
        blanks()
        break
      }
      case 'endif':
        stack.pop()
        blanks()
        break
      case 'define':
        if (active() && name) {
          defined.add(name)
          const objectLike = new RegExp(`^${name}(?:\\s|$)`).exec(arg)
          if (macros && objectLike) macros.set(name, arg.slice(name.length).trim())
        }
        blanks()
        break
      case 'undef':
        if (active() && name) defined.delete(name)
        blanks()
        break
      case 'include': {
        const inc = /^([<"])([^>"]+)[>"]/.exec(arg)
        if (!active() || !inc || inc[1] === '<' || SYSTEM_INCLUDES.has(inc[2])) {
          blanks()
          break
        }
        const key = `${file}\u0000${inc[2]}`
        if (seen.has(key)) {
          blanks()
          break
        }
        seen.add(key)
        out.push(run(includes(inc[2], file), joinPath(file, inc[2]), includes, defined, seen, macros))
        for (let k = first + 1; k <= i; k++) out.push('')
        break
      }
      default:
        blanks()
    }
  }
  return out.join('\n')
}

/** `defined(X)`, `defined X`, `!defined(X)`, `&&`, `||`, integer literals; anything else is false. */
function evalCondition(expr: string, defined: Set<string>): boolean {
  const replaced = expr
    .replace(/defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)/g, (_m, a: string | undefined, b: string | undefined) => (defined.has(a ?? b ?? '') ? '1' : '0'))
    .replace(/\s+/g, '')
  if (!/^[01!()&|]*$/.test(replaced.replace(/\d+/g, '1'))) return false
  return orExpr(replaced.replace(/\d+/g, (d) => (Number(d) !== 0 ? '1' : '0')), { i: 0 })
}

function orExpr(s: string, p: { i: number }): boolean {
  let v = andExpr(s, p)
  while (s.startsWith('||', p.i)) {
    p.i += 2
    v = andExpr(s, p) || v
  }
  return v
}

function andExpr(s: string, p: { i: number }): boolean {
  let v = unary(s, p)
  while (s.startsWith('&&', p.i)) {
    p.i += 2
    v = unary(s, p) && v
  }
  return v
}

function unary(s: string, p: { i: number }): boolean {
  if (s[p.i] === '!') {
    p.i++
    return !unary(s, p)
  }
  if (s[p.i] === '(') {
    p.i++
    const v = orExpr(s, p)
    if (s[p.i] === ')') p.i++
    return v
  }
  const c = s[p.i++]
  return c === '1'
}

function joinPath(from: string, rel: string): string {
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  const parts: string[] = []
  for (const p of (dir + rel).split('/')) {
    if (p === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop()
    else if (p !== '.' && p !== '') parts.push(p)
  }
  return parts.join('/')
}
