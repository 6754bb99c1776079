// How the schema words what it expected, so every rule reads alike: "expected <what>, got <value>".

/** A value as the user would recognise it from their file. */
export function describeValue(v: unknown): string {
  if (v === null) return 'nothing'
  if (typeof v === 'string') return `'${v}'`
  if (Array.isArray(v)) return 'a list'
  if (typeof v === 'object') return 'a mapping'
  return String(v)
}

type Issue = { input?: unknown; code?: string }

export function expected(what: string) {
  return (iss: Issue) =>
    iss.input === undefined ? `required field is missing; expected ${what}` : `expected ${what}, got ${describeValue(iss.input)}`
}
