// Every fuzz harness, in the order `npm run fuzz` runs them.
import type { Harness } from './engine'
import { archiveHarness } from './archive'
import { bfshellHarness, bmv2Harness, intHarness, specHarness, whereHarness } from './parsers'

export function allHarnesses(root: string): Array<Harness<unknown>> {
  return [specHarness(root), whereHarness(), intHarness(), bmv2Harness(root), bfshellHarness(root), archiveHarness(root)] as Array<Harness<unknown>>
}
