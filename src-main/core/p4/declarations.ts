// Reads what a P4 program declares for its control plane: tables, actions, registers, counters and
// multicast use. Not a P4 parser: a tokenizer (tokens.ts) plus a scan of the constructs p4lab's
// programs use (v1model and TNA), enough to check generated simple_switch_CLI files and bfrt
// scripts against.

import { preprocess } from './preprocess'
import { P4ReadError, evalInt, matching, skipAngles, skipAnnotations, splitArgs, stripComments, tokenize, type Tok } from './tokens'

export { P4ReadError }

export interface P4Key {
  field: string
  matchKind: string
}

export interface P4Table {
  /** `Control.table` */
  name: string
  control: string
  keys: P4Key[]
  /** Qualified action names, as p4info writes them (`Control.action`, or `NoAction`). */
  actions: string[]
  /** Qualified name of the default action, or null when the program leaves it to the compiler. */
  defaultAction: string | null
  size: number | null
}

export interface P4ActionParam {
  name: string
  bits: number
}

export interface P4Action {
  /** `Control.action`, or the bare name for top-level actions. */
  name: string
  params: P4ActionParam[]
}

export interface P4Register {
  name: string
  /** Element width in bits; for a TNA register of a struct (a pair), the sum of its fields. */
  bits: number
  /** Field widths when the element is a struct. */
  fields?: { name: string; bits: number }[]
  size: number
}

export interface P4Counter {
  name: string
  size: number
  /** The counter type as written: packets, bytes, packets_and_bytes (v1model) or PACKETS... (TNA). */
  unit: string
}

export interface P4Declarations {
  tables: P4Table[]
  actions: P4Action[]
  registers: P4Register[]
  counters: P4Counter[]
  usesMulticast: boolean
}

/**
 * `includes(path)` returns the text of a quoted include, path as written in the directive
 * relative to the including file (the caller resolves it; `from` is the including file's own path).
 */
export function readDeclarations(
  source: string,
  includes: (path: string, from: string) => string,
  fileName = 'main.p4',
  /** Names defined for the preprocessor (a build's -D flags): #ifdef blocks follow them. */
  defines: Iterable<string> = [],
): P4Declarations {
  const text = preprocess(source, fileName, includes, defines)
  return scan(tokenize(stripComments(text)))
}

interface Scope {
  consts: Map<string, number>
  typedefs: Map<string, number>
  structs: Map<string, { name: string; bits: number }[]>
}

/** Width of a type starting at toks[i]: bit<N>, int<N>, bool, a typedef, or a struct of those. */
function typeWidth(toks: Tok[], i: number, scope: Scope): { bits: number; next: number; struct?: string } | null {
  const t = toks[i]
  if ((t === 'bit' || t === 'int') && toks[i + 1] === '<') {
    const end = skipAngles(toks, i + 1)
    const bits = evalInt(toks.slice(i + 2, end - 1), scope.consts)
    return bits === null ? null : { bits, next: end }
  }
  if (t === 'bool') return { bits: 1, next: i + 1 }
  if (scope.typedefs.has(t)) return { bits: scope.typedefs.get(t) as number, next: i + 1 }
  if (scope.structs.has(t)) {
    const bits = (scope.structs.get(t) ?? []).reduce((s, f) => s + f.bits, 0)
    return { bits, next: i + 1, struct: t }
  }
  return null
}

function scan(toks: Tok[]): P4Declarations {
  const scope: Scope = { consts: new Map(), typedefs: new Map(), structs: new Map() }
  // Architecture widths the programs use through typedefs (tofino1_specs.p4).
  scope.typedefs.set('PortId_t', 9)
  scope.typedefs.set('MulticastGroupId_t', 16)
  scope.typedefs.set('QueueId_t', 5)
  scope.typedefs.set('MirrorId_t', 10)
  const out: P4Declarations = { tables: [], actions: [], registers: [], counters: [], usesMulticast: false }
  out.usesMulticast = toks.some((t, k) => (t === 'mcast_grp' || t === 'mcast_grp_a') && toks[k - 1] === '.' && toks[k + 1] === '=')

  let i = 0
  while (i < toks.length) {
    i = skipAnnotations(toks, i)
    const t = toks[i]
    if (t === undefined) break
    if (t === 'const') {
      const ty = typeWidth(toks, i + 1, scope)
      const nameAt = ty ? ty.next : i + 2
      const end = toks.indexOf(';', nameAt)
      if (toks[nameAt + 1] === '=') {
        const v = evalInt(toks.slice(nameAt + 2, end), scope.consts)
        if (v !== null) scope.consts.set(toks[nameAt], v)
      }
      i = end + 1
    } else if (t === 'typedef') {
      const ty = typeWidth(toks, i + 1, scope)
      const end = toks.indexOf(';', i)
      if (ty) scope.typedefs.set(toks[end - 1], ty.bits)
      i = end + 1
    } else if (t === 'struct' || t === 'header') {
      const name = toks[i + 1]
      const open = toks.indexOf('{', i)
      const close = matching(toks, open)
      if (t === 'struct') scope.structs.set(name, structFields(toks.slice(open + 1, close), scope))
      i = close + 1
    } else if (t === 'control') {
      const name = toks[i + 1]
      const paramsOpen = toks.indexOf('(', i)
      const paramsClose = matching(toks, paramsOpen)
      if (toks[paramsClose + 1] === ';') {
        i = paramsClose + 2
        continue
      }
      const open = paramsClose + 1
      const close = matching(toks, open)
      scanControl(toks, open + 1, close, name, scope, out)
      i = close + 1
    } else if (t === 'action') {
      const { action, next } = readAction(toks, i, '', scope)
      out.actions.push(action)
      i = next
    } else if (toks[i + 1] !== undefined && (t === 'parser' || t === 'extern' || t === 'package' || t === 'enum' || t === 'error' || t === 'match_kind')) {
      const open = toks.findIndex((x, k) => k > i && (x === '{' || x === ';'))
      i = toks[open] === '{' ? matching(toks, open) + 1 : open + 1
    } else if (t === '{') {
      i = matching(toks, i) + 1
    } else {
      i++
    }
  }
  // Tables name their actions unqualified; p4info qualifies them with the control, or not for NoAction
  // and other top-level actions.
  const declared = new Set(out.actions.map((a) => a.name))
  for (const table of out.tables) {
    const q = (a: string) => (declared.has(`${table.control}.${a}`) ? `${table.control}.${a}` : a)
    table.actions = table.actions.map(q)
    if (table.defaultAction) table.defaultAction = q(table.defaultAction)
  }
  if (!declared.has('NoAction') && out.tables.some((tb) => tb.actions.includes('NoAction'))) {
    out.actions.push({ name: 'NoAction', params: [] })
  }
  return out
}

function structFields(toks: Tok[], scope: Scope): { name: string; bits: number }[] {
  const fields: { name: string; bits: number }[] = []
  let i = 0
  while (i < toks.length) {
    i = skipAnnotations(toks, i)
    const end = toks.indexOf(';', i)
    if (end < 0) break
    const ty = typeWidth(toks, i, scope)
    fields.push({ name: toks[end - 1], bits: ty ? ty.bits : 0 })
    i = end + 1
  }
  return fields
}

function readAction(toks: Tok[], i: number, control: string, scope: Scope): { action: P4Action; next: number } {
  const name = toks[i + 1]
  const open = i + 2
  const close = matching(toks, open)
  const params: P4ActionParam[] = []
  let k = open + 1
  while (k < close) {
    k = skipAnnotations(toks, k)
    if (toks[k] === 'in' || toks[k] === 'out' || toks[k] === 'inout') k++
    const ty = typeWidth(toks, k, scope)
    if (!ty) throw new P4ReadError(`action ${name}: cannot read the type of parameter at '${toks[k]}'`)
    params.push({ name: toks[ty.next], bits: ty.bits })
    k = ty.next + 1
    if (toks[k] === ',') k++
  }
  const bodyClose = matching(toks, close + 1)
  return { action: { name: control ? `${control}.${name}` : name, params }, next: bodyClose + 1 }
}

function scanControl(toks: Tok[], start: number, end: number, control: string, scope: Scope, out: P4Declarations): void {
  let i = start
  while (i < end) {
    i = skipAnnotations(toks, i)
    const t = toks[i]
    if (t === 'apply' && toks[i + 1] === '{') {
      i = matching(toks, i + 1) + 1
    } else if (t === 'action') {
      const { action, next } = readAction(toks, i, control, scope)
      out.actions.push(action)
      i = next
    } else if (t === 'table') {
      const open = i + 2
      const close = matching(toks, open)
      out.tables.push(readTable(toks.slice(open + 1, close), control, toks[i + 1], scope))
      i = close + 1
    } else if (t === 'const') {
      const end2 = toks.indexOf(';', i)
      const ty = typeWidth(toks, i + 1, scope)
      const nameAt = ty ? ty.next : i + 2
      const v = evalInt(toks.slice(nameAt + 2, end2), scope.consts)
      if (v !== null) scope.consts.set(toks[nameAt], v)
      i = end2 + 1
    } else if (t === 'register' || t === 'Register' || t === 'counter' || t === 'Counter') {
      i = readInstance(toks, i, control, scope, out)
    } else if (t === '{') {
      i = matching(toks, i) + 1
    } else {
      i++
    }
  }
}

/** register<T>(size) name; / Register<T, I>(size[, init]) name; / counter(size, type) name; / Counter<W, I>(size, type) name; */
function readInstance(toks: Tok[], i: number, control: string, scope: Scope, out: P4Declarations): number {
  const kind = toks[i]
  let k = i + 1
  let element: ReturnType<typeof typeWidth> = null
  if (toks[k] === '<') {
    element = typeWidth(toks, k + 1, scope)
    k = skipAngles(toks, k)
  }
  if (toks[k] !== '(') return k
  const close = matching(toks, k)
  const args = splitArgs(toks.slice(k + 1, close))
  const name = toks[close + 1]
  const size = evalInt(args[0] ?? [], scope.consts)
  if (size === null) throw new P4ReadError(`${control}.${name}: cannot evaluate size '${(args[0] ?? []).join(' ')}'`)
  if (kind === 'register' || kind === 'Register') {
    if (!element) throw new P4ReadError(`${control}.${name}: cannot read the element type`)
    const reg: P4Register = { name: `${control}.${name}`, bits: element.bits, size }
    if (element.struct) reg.fields = scope.structs.get(element.struct)
    out.registers.push(reg)
  } else {
    const unit = (args[1] ?? []).slice(-1)[0] ?? ''
    out.counters.push({ name: `${control}.${name}`, size, unit })
  }
  return toks.indexOf(';', close) + 1
}

function readTable(toks: Tok[], control: string, name: string, scope: Scope): P4Table {
  const table: P4Table = { name: `${control}.${name}`, control, keys: [], actions: [], defaultAction: null, size: null }
  let i = 0
  while (i < toks.length) {
    i = skipAnnotations(toks, i)
    const prop = toks[i]
    if (prop === 'const' && toks[i + 1] === 'default_action') {
      i++
      continue
    }
    if (prop === 'key' && toks[i + 2] === '{') {
      const close = matching(toks, i + 2)
      const body = toks.slice(i + 3, close)
      let start = 0
      for (let k = 0; k < body.length; k++) {
        if (body[k] === ';') {
          const entry = body.slice(start, k)
          const colon = entry.lastIndexOf(':')
          let kindAt = colon + 1
          kindAt = skipAnnotations(entry, kindAt)
          table.keys.push({ field: entry.slice(skipAnnotations(entry, 0), colon).join(''), matchKind: entry[kindAt] })
          start = k + 1
        }
      }
      i = close + 1
    } else if (prop === 'actions' && toks[i + 2] === '{') {
      const close = matching(toks, i + 2)
      const body = toks.slice(i + 3, close)
      let k = 0
      while (k < body.length) {
        k = skipAnnotations(body, k)
        if (body[k] && body[k] !== ';') table.actions.push(body[k])
        k = body.indexOf(';', k) + 1 || body.length
      }
      i = close + 1
    } else if (prop === 'default_action') {
      table.defaultAction = toks[i + 2]
      i = toks.indexOf(';', i) + 1
    } else if (prop === 'size') {
      const end = toks.indexOf(';', i)
      table.size = evalInt(toks.slice(i + 2, end), scope.consts)
      i = end + 1
    } else if (toks[i + 1] === '=') {
      const next = toks.indexOf(';', i)
      const brace = toks.indexOf('{', i)
      i = brace >= 0 && brace < next ? matching(toks, brace) + 1 : next + 1
    } else {
      i++
    }
  }
  return table
}