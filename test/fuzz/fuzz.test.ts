// A bounded, seeded run of every `npm run fuzz` harness (scripts/fuzz/): no input may make a
// parser throw anything but our own clear refusal. The long runs (10^6 inputs) are `npm run fuzz`.
import { afterAll, describe, expect, it } from 'vitest'
import { fuzz } from '../../scripts/fuzz/engine'
import { allHarnesses } from '../../scripts/fuzz/harnesses'
import { ROOT } from '../helpers/start'

/** Inputs per harness: a few thousand, fewer where one input is a whole import. */
const COUNTS: Record<string, number> = { spec: 2000, where: 5000, int: 5000, bmv2: 5000, tofino: 3000, archive: 200 }

const harnesses = allHarnesses(ROOT)
afterAll(() => harnesses.forEach((h) => h.close?.()))

describe('fuzz harnesses (bounded, seed 7)', () => {
  for (const h of harnesses) {
    const key = h.name.split(' ')[0]
    it(`${h.name}: ${COUNTS[key]} inputs, no crash`, async () => {
      const rep = await fuzz(h, { count: COUNTS[key], seed: 7 })
      expect(rep.distinct, JSON.stringify(rep.distinct, null, 2)).toEqual([])
      expect(rep.crashes).toBe(0)
      expect(rep.inputs).toBe(COUNTS[key])
    }, 300_000)
  }
})
