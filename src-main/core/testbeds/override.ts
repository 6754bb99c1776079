import { existsSync } from 'node:fs'
import { setTopLevelScalar } from '../spec/rewrite'
import { openStore } from '../store'

/**
 * The experiment text with its `testbed:` set to `name` (for `p4lab run --testbed`). Only
 * that value changes, in place, or one line is appended when the file has none, so every
 * other line keeps its number (errors still point into the user's file) and its comments.
 * Text that is not a mapping is returned as is, for the parser to report.
 */
export function withTestbed(yaml: string, name: string): string {
  return setTopLevelScalar(yaml, 'testbed', name)
}

/** The testbed names in a database file, without creating one: ['sim'] when it does not exist. */
export function storedTestbedNames(dbPath: string): string[] {
  if (!existsSync(dbPath)) return ['sim']
  const store = openStore(dbPath, { forReading: true })
  try {
    return store.testbedNames()
  } finally {
    store.close()
  }
}
