// A small P4 highlighter for the Pipelines view: a tokenizer that splits each line into spans of
// keywords, types, numbers, comments, strings, preprocessor lines and annotations. No package,
// no HTML strings: the view renders the spans with text interpolation, so nothing is injected.

export type TokenClass = 'kw' | 'type' | 'num' | 'com' | 'str' | 'pp' | 'anno' | 'fn' | ''

export interface Token {
  cls: TokenClass
  text: string
}

const KEYWORDS = new Set([
  'abstract', 'action', 'actions', 'apply', 'const', 'control', 'default', 'default_action', 'else', 'entries',
  'enum', 'exit', 'extern', 'false', 'header', 'header_union', 'if', 'in', 'inout', 'key', 'match_kind', 'out',
  'package', 'parser', 'return', 'select', 'size', 'state', 'struct', 'switch', 'table', 'this', 'transition',
  'true', 'tuple', 'type', 'typedef', 'value_set', 'void', 'accept', 'reject', 'list', 'for',
])

const TYPES = new Set([
  'bit', 'int', 'varbit', 'bool', 'error', 'string', 'packet_in', 'packet_out', 'register', 'Register',
  'RegisterAction', 'counter', 'Counter', 'direct_counter', 'DirectCounter', 'meter', 'Meter', 'Hash', 'Random',
  'Checksum', 'Mirror', 'Resubmit', 'V1Switch', 'Pipeline', 'Switch', 'standard_metadata_t', 'exact', 'lpm',
  'ternary', 'range', 'optional', 'selector', 'NoAction',
])

const TOKEN =
  /(\/\/.*)|(\/\*)|("(?:[^"\\]|\\.)*"?)|(@[A-Za-z_][A-Za-z0-9_]*)|(\d+[wsWS][0-9a-fA-FxXbBoO_]+|0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)|([A-Za-z_][A-Za-z0-9_]*)|(\s+)|([^\sA-Za-z0-9_"/@]+|\/)/y

/** Tokens per line. Block comments may span lines; the state carries over. */
export function highlightP4(text: string): Token[][] {
  const out: Token[][] = []
  let inComment = false
  for (const line of text.split('\n')) {
    const toks: Token[] = []
    const push = (cls: TokenClass, t: string) => {
      if (t === '') return
      const last = toks[toks.length - 1]
      if (last && last.cls === cls) last.text += t
      else toks.push({ cls, text: t })
    }
    let i = 0
    if (inComment) {
      const end = line.indexOf('*/')
      if (end < 0) {
        push('com', line)
        out.push(toks)
        continue
      }
      push('com', line.slice(0, end + 2))
      i = end + 2
      inComment = false
    }
    if (i === 0 && /^\s*#/.test(line)) {
      // Preprocessor: the directive, then a quoted or <...> file name as a string.
      const m = /^(\s*#\s*\w+)(.*)$/.exec(line)!
      push('pp', m[1])
      const rest = m[2]
      const file = /^(\s*)("[^"]*"|<[^>]*>)(.*)$/.exec(rest)
      if (file) {
        push('', file[1])
        push('str', file[2])
        push(/^\s*\/\//.test(file[3]) ? 'com' : '', file[3])
      } else push('', rest)
      out.push(toks)
      continue
    }
    while (i < line.length) {
      TOKEN.lastIndex = i
      const m = TOKEN.exec(line)
      if (!m) {
        push('', line[i])
        i++
        continue
      }
      const t = m[0]
      if (m[1]) push('com', t)
      else if (m[2]) {
        const end = line.indexOf('*/', i + 2)
        if (end < 0) {
          push('com', line.slice(i))
          inComment = true
          i = line.length
          continue
        }
        push('com', line.slice(i, end + 2))
        i = end + 2
        continue
      } else if (m[3]) push('str', t)
      else if (m[4]) push('anno', t)
      else if (m[5]) push('num', t)
      else if (m[6]) {
        if (KEYWORDS.has(t)) push('kw', t)
        else if (TYPES.has(t) || /_t$/.test(t)) push('type', t)
        else if (line[i + t.length] === '(') push('fn', t)
        else push('', t)
      } else push('', t)
      i += t.length
    }
    out.push(toks)
  }
  return out
}
