// The core's query errors say "query: column N: what is wrong" (core/compare/query.ts). The
// runs table and the compare view show the query with a caret under that column.

export interface QueryProblem {
  /** 0-based offset into the query, or null when the message names no column (an unknown field found later, say). */
  offset: number | null
  detail: string
}

export function queryProblem(message: string): QueryProblem {
  const m = /(?:^|:\s*)query:\s*column (\d+):\s*([\s\S]*)$/.exec(message) ?? /column (\d+):\s*([\s\S]*)$/.exec(message)
  if (!m) return { offset: null, detail: message.replace(/^.*?query:\s*/, '') }
  return { offset: Math.max(0, Number(m[1]) - 1), detail: m[2] }
}
