import { existsSync } from 'node:fs'
import { isMap, isScalar, parseDocument } from 'yaml'
import { openStore } from '../store'

/**
 * The experiment text with its `testbed:` set to `name` (for `p4lab run --testbed`). Only
 * that value changes, in place, or one line is appended when the file has none, so every
 * other line keeps its number (errors still point into the user's file) and its comments.
 * Text that is not a mapping is returned as is, for the parser to report.
 */
export function withTestbed(yaml: string, name: string): string {
  const doc = parseDocument(yaml, { keepSourceTokens: true })
  if (doc.errors.length > 0 || !isMap(doc.contents)) return yaml
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'testbed')
  const value = JSON.stringify(name)
  if (pair && isScalar(pair.value) && pair.value.range) {
    const [start, end] = pair.value.range
    return yaml.slice(0, start) + value + yaml.slice(end)
  }
  if (pair) return yaml // a non-scalar testbed: leave it for the parser to report
  return yaml + (yaml === '' || yaml.endsWith('\n') ? '' : '\n') + `testbed: ${value}\n`
}

/** The testbed names in a database file, without creating one: ['sim'] when it does not exist. */
export function storedTestbedNames(dbPath: string): string[] {
  if (!existsSync(dbPath)) return ['sim']
  const store = openStore(dbPath)
  try {
    return store.testbedNames()
  } finally {
    store.close()
  }
}
