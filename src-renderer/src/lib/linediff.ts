// A line diff of two texts (longest common subsequence), for comparing experiment revisions.
// Revisions are short YAML files, so the quadratic table is small.

export interface DiffLine {
  op: ' ' | '-' | '+'
  text: string
  /** Line number in the old text ('-' and ' ') or the new one ('+'). */
  n: number
}

export function lineDiff(a: string, b: string): DiffLine[] {
  const x = a.split('\n')
  const y = b.split('\n')
  const w = y.length + 1
  const lcs = new Uint32Array((x.length + 1) * w)
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1])
    }
  }
  const out: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push({ op: ' ', text: x[i], n: i + 1 })
      i++
      j++
    } else if (i < x.length && (j === y.length || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
      // Removed lines before the added ones that replace them, as diffs read.
      out.push({ op: '-', text: x[i], n: i + 1 })
      i++
    } else {
      out.push({ op: '+', text: y[j], n: j + 1 })
      j++
    }
  }
  return out
}
