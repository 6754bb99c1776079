import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml'

// Maps a field path (as zod reports it) back to where it is written in the YAML text.

export type FieldPath = ReadonlyArray<string | number | symbol>

export interface Location {
  line: number
  column: number
  /** The part of the path that exists in the file; a scalar given where a list is
   * accepted (load: 0.5) ends the walk early, and the error is about that scalar. */
  path: Array<string | number>
}

function findPair(map: { items: Pair[] }, key: string | number | symbol): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key))
}

function start(node: unknown): number | undefined {
  const range = node && typeof node === 'object' && 'range' in node ? (node as Node).range : undefined
  return range ? range[0] : undefined
}

/**
 * The position of the node at path, or, when a key is missing, of the map that should
 * hold it. With keyOf set, the position of the key itself (for "unknown field" errors).
 */
export function locate(doc: Document, lines: LineCounter, path: FieldPath, opts: { keyOf?: boolean } = {}): Location {
  let node: unknown = doc.contents
  let offset = start(doc.contents) ?? 0
  const found: Array<string | number> = []
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]
    if (isAlias(node)) node = node.resolve(doc)
    let next: unknown
    let nextOffset: number | undefined
    if (isMap(node)) {
      const pair = findPair(node, seg)
      if (!pair) {
        // A missing key: the error belongs to the map, but the path names the field.
        const pos = lines.linePos(offset)
        return { line: pos.line, column: pos.col, path: path.map((p) => (typeof p === 'symbol' ? String(p) : p)) }
      }
      const last = i === path.length - 1
      // An empty value (`topology:` and nothing) has no position of its own; use the key.
      next = pair.value
      nextOffset = last && opts.keyOf ? start(pair.key) : (start(pair.value) ?? start(pair.key))
      if (isScalar(pair.value) && pair.value.value === null && pair.value.source === '') nextOffset = start(pair.key)
    } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
      next = node.items[seg]
      nextOffset = start(next)
    } else {
      break
    }
    found.push(typeof seg === 'symbol' ? String(seg) : seg)
    node = next
    if (nextOffset !== undefined) offset = nextOffset
  }
  const pos = lines.linePos(offset)
  return { line: pos.line, column: pos.col, path: found }
}

export function formatPath(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return 'document'
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}
