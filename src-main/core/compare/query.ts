// A small query language over runs, as in the runs tables of W&B and MLflow:
//
//   query      := or
//   or         := and ('or' and)*
//   and        := not ('and' not)*
//   not        := 'not' not | primary
//   primary    := '(' query ')' | 'tag:' value | field op value
//   op         := '=' | '!=' | '<' | '<=' | '>' | '>=' | '~'        (~ : contains)
//   value      := number | 'quoted' | "quoted" | word
//
// e.g. `scheme = hula and load >= 0.5`, `status != failed`, `tag:paper`.
// Keywords are case-insensitive; a field or word may hold letters, digits, '_', '-', '.'.
// Parsed by hand (recursive descent) so every error names the column it is about.

export type Op = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~'
export type Literal = { kind: 'number'; value: number; text: string } | { kind: 'string'; value: string }

export type QueryNode =
  | { type: 'and' | 'or'; left: QueryNode; right: QueryNode }
  | { type: 'not'; expr: QueryNode }
  | { type: 'tag'; tag: string; pos: number }
  | { type: 'cmp'; field: string; op: Op; value: Literal; pos: number }

/** A problem in a query, at a 0-based offset; `message` already names the column. */
export class QueryError extends Error {
  constructor(
    readonly position: number,
    readonly detail: string,
    readonly query: string,
  ) {
    super(`column ${position + 1}: ${detail}`)
    this.name = 'QueryError'
  }

  /** The query with a caret under the offending column, for terminals. */
  pointer(): string {
    return `${this.query}\n${' '.repeat(this.position)}^`
  }
}

type Token =
  | { t: 'word'; text: string; pos: number }
  | { t: 'number'; text: string; value: number; pos: number }
  | { t: 'string'; value: string; pos: number }
  | { t: 'op'; text: Op; pos: number }
  | { t: '(' | ')' | 'tag:'; pos: number }
  | { t: 'end'; pos: number }

const WORD = /[A-Za-z0-9_.-]/
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

function describe(tok: Token): string {
  switch (tok.t) {
    case 'end':
      return 'the end of the query'
    case 'word':
    case 'number':
      return `'${tok.text}'`
    case 'string':
      return `the string ${JSON.stringify(tok.value)}`
    case 'op':
      return `'${tok.text}'`
    default:
      return `'${tok.t}'`
  }
}

function tokenize(src: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]
    if (/\s/.test(c)) {
      i++
      continue
    }
    const pos = i
    if (c === '(' || c === ')') {
      out.push({ t: c, pos })
      i++
    } else if (c === '!' || c === '<' || c === '>' || c === '=' || c === '~') {
      const two = src.slice(i, i + 2)
      if (two === '!=' || two === '<=' || two === '>=') {
        out.push({ t: 'op', text: two, pos })
        i += 2
      } else if (c === '!') {
        throw new QueryError(pos, `'!' alone is not an operator; write '!=' or 'not'`, src)
      } else {
        // '==' is a common habit; accept it as '='.
        if (two === '==') i++
        out.push({ t: 'op', text: c as Op, pos })
        i++
      }
    } else if (c === '"' || c === "'") {
      let j = i + 1
      let value = ''
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) j++
        value += src[j]
        j++
      }
      if (j >= src.length) throw new QueryError(pos, `the string opened here is not closed; add a closing ${c}`, src)
      out.push({ t: 'string', value, pos })
      i = j + 1
    } else if (WORD.test(c) || c === '+') {
      let j = i + 1
      while (j < src.length && (WORD.test(src[j]) || (/[eE]/.test(src[j - 1]) && /[+-]/.test(src[j])))) j++
      const text = src.slice(i, j)
      if (text.toLowerCase() === 'tag' && src[j] === ':') {
        out.push({ t: 'tag:', pos })
        i = j + 1
        continue
      }
      if (NUMBER.test(text)) out.push({ t: 'number', text, value: Number(text), pos })
      else if (c === '+') throw new QueryError(pos, `unexpected '+'`, src)
      else out.push({ t: 'word', text, pos })
      i = j
    } else {
      throw new QueryError(pos, `unexpected character '${c}'`, src)
    }
  }
  out.push({ t: 'end', pos: src.length })
  return out
}

const isKeyword = (tok: Token, kw: string) => tok.t === 'word' && tok.text.toLowerCase() === kw

/**
 * Budgets of a query: 'not's and parentheses nested at most MAX_QUERY_NESTING deep, at most
 * MAX_QUERY_TERMS comparisons. The parser and the evaluator recurse over the tree, so a query
 * of 20,000 'not's would overflow the stack; no query a person writes comes near either.
 */
export const MAX_QUERY_NESTING = 100
export const MAX_QUERY_TERMS = 1_000

/** Parses a query; an empty (or blank) query is null, which matches every run. */
export function parseQuery(src: string): QueryNode | null {
  const toks = tokenize(src)
  let k = 0
  let depth = 0
  let terms = 0
  const enter = (pos: number, what: string) => {
    if (++depth > MAX_QUERY_NESTING) {
      throw new QueryError(pos, `this ${what} nests the query more than ${MAX_QUERY_NESTING} deep ('not's and parentheses); the budget is ${MAX_QUERY_NESTING} levels: simplify the query`, src)
    }
  }
  const peek = () => toks[k]
  const next = () => toks[k++]

  const value = (after: string): Literal => {
    const tok = next()
    if (tok.t === 'number') return { kind: 'number', value: tok.value, text: tok.text }
    if (tok.t === 'string') return { kind: 'string', value: tok.value }
    if (tok.t === 'word' && !['and', 'or', 'not'].some((kw) => isKeyword(tok, kw))) return { kind: 'string', value: tok.text }
    throw new QueryError(tok.pos, `expected a value after ${after}, found ${describe(tok)}`, src)
  }

  const primary = (): QueryNode => {
    const tok = next()
    if (tok.t === '(') {
      enter(tok.pos, "'('")
      const inner = or()
      depth--
      const close = next()
      if (close.t !== ')') throw new QueryError(close.pos, `expected ')' to close the '(' at column ${tok.pos + 1}, found ${describe(close)}`, src)
      return inner
    }
    if (tok.t === 'tag:') {
      const v = value("'tag:'")
      return { type: 'tag', tag: v.kind === 'number' ? v.text : v.value, pos: tok.pos }
    }
    if (tok.t === 'word' && !['and', 'or', 'not'].some((kw) => isKeyword(tok, kw))) {
      const op = next()
      if (op.t !== 'op') {
        throw new QueryError(op.pos, `expected an operator (=, !=, <, <=, >, >=, ~) after the field '${tok.text}', found ${describe(op)}`, src)
      }
      return { type: 'cmp', field: tok.text, op: op.text, value: value(`'${op.text}'`), pos: tok.pos }
    }
    throw new QueryError(tok.pos, `expected a field (e.g. scheme), 'tag:', 'not' or '(', found ${describe(tok)}`, src)
  }

  const not = (): QueryNode => {
    if (isKeyword(peek(), 'not')) {
      enter(next().pos, "'not'")
      const expr = not()
      depth--
      return { type: 'not', expr }
    }
    if (++terms > MAX_QUERY_TERMS) {
      throw new QueryError(peek().pos, `the query has more than ${MAX_QUERY_TERMS} terms; the budget is ${MAX_QUERY_TERMS} comparisons joined by 'and'/'or'`, src)
    }
    return primary()
  }

  const and = (): QueryNode => {
    let left = not()
    while (isKeyword(peek(), 'and')) {
      next()
      left = { type: 'and', left, right: not() }
    }
    return left
  }

  const or = (): QueryNode => {
    let left = and()
    while (isKeyword(peek(), 'or')) {
      next()
      left = { type: 'or', left, right: and() }
    }
    return left
  }

  if (peek().t === 'end') return null
  const tree = or()
  const rest = peek()
  if (rest.t !== 'end') {
    throw new QueryError(rest.pos, `expected 'and', 'or' or the end of the query, found ${describe(rest)}`, src)
  }
  return tree
}

/** What a query reads of a run: field values (missing: undefined) and the experiment's tags. */
export interface Queryable {
  get(field: string): string | number | null | undefined
  tags: readonly string[]
}

/** Throws a QueryError at the first field not in `known` (so a typo is not "no runs match"). */
export function checkFields(node: QueryNode | null, known: ReadonlySet<string>, src: string): void {
  if (!node) return
  if (node.type === 'and' || node.type === 'or') {
    checkFields(node.left, known, src)
    checkFields(node.right, known, src)
  } else if (node.type === 'not') checkFields(node.expr, known, src)
  else if (node.type === 'cmp' && !known.has(node.field)) {
    const list = [...known].sort()
    throw new QueryError(node.pos, `unknown field '${node.field}'; known fields: ${list.join(', ')}`, src)
  }
}

function compare(actual: string | number, op: Op, lit: Literal): boolean {
  if (op === '~') return String(actual).toLowerCase().includes(String(lit.value).toLowerCase())
  let a: string | number = actual
  let b: string | number = lit.value
  // Numbers compare as numbers; anything else as text.
  if (typeof actual === 'number' && lit.kind === 'number') b = lit.value
  else if (typeof actual === 'number' || lit.kind === 'number') {
    a = String(actual)
    b = lit.kind === 'number' ? lit.text : lit.value
  }
  switch (op) {
    case '=':
      return a === b
    case '!=':
      return a !== b
    case '<':
      return a < b
    case '<=':
      return a <= b
    case '>':
      return a > b
    case '>=':
      return a >= b
  }
}

/** A field a run lacks (a param another experiment has, a metric of a failed run) matches nothing but '!='. */
export function matches(node: QueryNode | null, run: Queryable): boolean {
  if (!node) return true
  switch (node.type) {
    case 'and':
      return matches(node.left, run) && matches(node.right, run)
    case 'or':
      return matches(node.left, run) || matches(node.right, run)
    case 'not':
      return !matches(node.expr, run)
    case 'tag':
      return run.tags.includes(node.tag)
    case 'cmp': {
      const v = run.get(node.field)
      if (v === undefined || v === null) return node.op === '!='
      return compare(v, node.op, node.value)
    }
  }
}

const BASE_PLURALS: Record<string, string> = { scheme: 'schemes', load: 'loads', seed: 'seeds', target: 'targets', status: 'statuses', experiment: 'experiments' }
const MAX_LISTED = 20

function literalText(v: Literal): string {
  return v.kind === 'number' ? v.text : `'${v.value}'`
}

/**
 * For each comparison (and tag) in the query that no run satisfies on its own, a hint naming
 * what the runs do have: `scheme = rsp` → "no scheme 'rsp'; schemes in the runs compared:
 * ecmp, hula" (compare), "... in the runs searched: ..." (list --where, the app's search box).
 * A typo in a value then reads as one, not as an empty table.
 */
export function unmatchedHints(node: QueryNode | null, runs: readonly Queryable[], verb: 'compared' | 'searched' = 'compared'): string[] {
  const out: string[] = []
  const walk = (n: QueryNode | null): void => {
    if (!n) return
    if (n.type === 'and' || n.type === 'or') {
      walk(n.left)
      walk(n.right)
      return
    }
    if (n.type === 'not') return walk(n.expr)
    if (runs.some((r) => matches(n, r))) return
    if (n.type === 'tag') {
      const tags = [...new Set(runs.flatMap((r) => r.tags))].sort()
      out.push(`no run tagged '${n.tag}'; ${tags.length ? `tags in the runs ${verb}: ${tags.join(', ')}` : `the runs ${verb} have no tags`}`)
    } else if (n.type === 'cmp') {
      const present = [...new Set(runs.map((r) => r.get(n.field)).filter((v): v is string | number => v !== null && v !== undefined))]
      present.sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))))
      const what = n.op === '=' ? `no ${n.field} ${literalText(n.value)}` : `no run has ${n.field} ${n.op} ${literalText(n.value)}`
      if (present.length === 0) {
        out.push(`${what}; no run ${verb} has a value for ${n.field}`)
        return
      }
      const listed = present.slice(0, MAX_LISTED).join(', ') + (present.length > MAX_LISTED ? `, … (${present.length} in all)` : '')
      out.push(`${what}; ${BASE_PLURALS[n.field] ?? `values of ${n.field}`} in the runs ${verb}: ${listed}`)
    }
  }
  walk(node)
  return [...new Set(out)]
}
