// The declaration scan walks tokens; keeping how preprocessed P4 text becomes tokens (comments, literals, brackets) here lets it read as a scan of constructs only.

export class P4ReadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'P4ReadError'
  }
}

export function stripComments(text: string): string {
  // Keep string literals intact; blank out comments but keep line breaks.
  return text.replace(/"(?:[^"\\]|\\.)*"|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m) =>
    m.startsWith('"') ? m : m.replace(/[^\n]/g, ' '),
  )
}

export type Tok = string

export function tokenize(text: string): Tok[] {
  const out: Tok[] = []
  const re = /\s+|#[^\n]*|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+[wsWS]\d+|0[xXbBoO][0-9a-fA-F_]+|\d+|&&&|\+\+|<<|>>|==|!=|<=|>=|&&|\|\||->|[{}()[\]<>;:,.=+\-*/%&|^!~?@]/y
  let i = 0
  while (i < text.length) {
    re.lastIndex = i
    const m = re.exec(text)
    if (!m) throw new P4ReadError(`unexpected character '${text[i]}' at offset ${i}`)
    i = re.lastIndex
    const t = m[0]
    if (/^\s/.test(t) || t.startsWith('#')) continue
    out.push(t)
  }
  return out
}

/** Evaluates an integer constant expression: literals, named constants, + - * << >> and parentheses. */
export function evalInt(toks: Tok[], consts: Map<string, number>): number | null {
  let pos = 0
  const peek = () => toks[pos]
  function primary(): number | null {
    const t = toks[pos++]
    if (t === undefined) return null
    if (t === '(') {
      // A cast such as (bit<32>) is skipped; otherwise a parenthesized expression.
      if (toks[pos] === 'bit' || toks[pos] === 'int') {
        while (pos < toks.length && toks[pos] !== ')') pos++
        pos++
        return primary()
      }
      const v = expr()
      pos++
      return v
    }
    const lit = parseLiteral(t)
    if (lit !== null) return lit
    if (consts.has(t)) return consts.get(t) ?? null
    return null
  }
  function mul(): number | null {
    let v = primary()
    while (peek() === '*') {
      pos++
      const r = primary()
      v = v === null || r === null ? null : v * r
    }
    return v
  }
  function add(): number | null {
    let v = mul()
    while (peek() === '+' || peek() === '-') {
      const op = toks[pos++]
      const r = mul()
      v = v === null || r === null ? null : op === '+' ? v + r : v - r
    }
    return v
  }
  function expr(): number | null {
    let v = add()
    while (peek() === '<<' || peek() === '>>') {
      const op = toks[pos++]
      const r = add()
      v = v === null || r === null ? null : op === '<<' ? v * 2 ** r : Math.floor(v / 2 ** r)
    }
    return v
  }
  const v = expr()
  return pos === toks.length ? v : null
}

function parseLiteral(t: string): number | null {
  const sized = /^\d+[wsWS](\d+)$/.exec(t)
  if (sized) return Number(sized[1])
  if (/^0[xX][0-9a-fA-F_]+$/.test(t)) return parseInt(t.slice(2).replace(/_/g, ''), 16)
  if (/^0[bB][01_]+$/.test(t)) return parseInt(t.slice(2).replace(/_/g, ''), 2)
  if (/^\d+$/.test(t)) return Number(t)
  return null
}


/** Index of the token closing the bracket opened at `open`. */
export function matching(toks: Tok[], open: number): number {
  const pairs: Record<string, string> = { '{': '}', '(': ')', '[': ']' }
  const close = pairs[toks[open]]
  let depth = 0
  for (let i = open; i < toks.length; i++) {
    if (toks[i] === toks[open]) depth++
    else if (toks[i] === close && --depth === 0) return i
  }
  throw new P4ReadError(`unbalanced '${toks[open]}'`)
}


/** Skips a generic argument list starting at `<`; returns the index after `>`. */
export function skipAngles(toks: Tok[], i: number): number {
  let depth = 0
  for (; i < toks.length; i++) {
    if (toks[i] === '<') depth++
    else if (toks[i] === '>') depth--
    else if (toks[i] === '>>') depth -= 2
    if (depth <= 0) return i + 1
  }
  throw new P4ReadError('unbalanced <')
}

/** Skips annotations (`@name` or `@name(...)`) starting at toks[i]. */
export function skipAnnotations(toks: Tok[], i: number): number {
  while (toks[i] === '@') {
    i += 2
    if (toks[i] === '(') i = matching(toks, i) + 1
  }
  return i
}

/** Splits a comma-separated argument list at depth 0. */
export function splitArgs(toks: Tok[]): Tok[][] {
  const args: Tok[][] = [[]]
  let depth = 0
  for (const t of toks) {
    if (t === '(' || t === '<' || t === '{') depth++
    else if (t === ')' || t === '>' || t === '}') depth--
    if (t === ',' && depth === 0) args.push([])
    else args[args.length - 1].push(t)
  }
  return args
}
