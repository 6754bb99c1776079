// Text that reaches a terminal. A name holding ESC can recolour or rewrite the screen, CR or
// LF can forge a line of output, and the bidirectional overrides can make text read other
// than it is ("Trojan Source: Invisible Vulnerabilities", USENIX Security 2023). New input
// refuses them (the experiment spec); values already stored are escaped when printed.

/** C0 controls, DEL, C1 controls, line/paragraph separators and the bidi embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** The first control character of `s` and its index, or undefined. */
export function findControl(s: string): { index: number; char: string } | undefined {
  const m = CONTROL.exec(s)
  return m ? { index: m.index, char: m[0] } : undefined
}

const NAMES: Record<string, string> = { '\u0000': 'NUL', '\t': 'TAB', '\n': 'LF', '\r': 'CR', '\u001b': 'ESC', '\u007f': 'DEL' }

/** "ESC (U+001B)": how an error names the character it refuses. */
export function describeControl(char: string): string {
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
  return NAMES[char] ? `${NAMES[char]} (${code})` : code
}

// JSON's escapes, so a JSON document passed through printableLines stays valid and means the same.
function escapeOne(c: string): string {
  if (c === '\n') return '\\n'
  if (c === '\r') return '\\r'
  if (c === '\t') return '\\t'
  return `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`
}

const CONTROL_ALL = new RegExp(CONTROL.source, 'g')

/** `s` with every control character written as an escape (\u001b, \r, \u202e): safe to print. */
export function printable(s: string): string {
  return s.replace(CONTROL_ALL, escapeOne)
}

/** Like printable, keeping line feeds (and tabs): for multi-line text such as an error with its usage. */
export function printableLines(s: string): string {
  return s.replace(CONTROL_ALL, (c) => (c === '\n' || c === '\t' ? c : escapeOne(c)))
}
