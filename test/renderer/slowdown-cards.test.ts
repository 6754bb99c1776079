// A slowdown CDF card with nothing to draw says so in words, naming its size class and why
// (no flow that large at all, or none of them finished), and one with points says how many
// flows each line pools; a line of one value is drawn as a dot and the note says so.
import { describe, expect, it } from 'vitest'
import type { CompareResult } from '@contract/index'
import { slowdownCardText } from '../../src-renderer/src/lib/slowdownCards'

type Cdf = NonNullable<CompareResult['cdfs']>[number]
const BUCKETS = ['<10 KB', '1–10 MB', '≥10 MB']

function result(cdfs: Cdf[]): CompareResult {
  return { lineKeys: ['scheme'], cdfs } as unknown as CompareResult
}
const step = (v: number): Array<[number, number]> => [[v, 0.5], [v, 1]]
const curve: Array<[number, number]> = [[1.2, 0.5], [3, 1]]

/** Per scheme and bucket: [flows, finished, points]. */
function cdfs(per: Record<string, Record<string, [number, number, Array<[number, number]>]>>, x = 0.5): Cdf[] {
  return Object.entries(per).flatMap(([scheme, buckets]) =>
    BUCKETS.map((bucket) => {
      const [flows, finished, points] = buckets[bucket] ?? [0, 0, []]
      return { line: { scheme }, x, bucket, points, flows, finished }
    }),
  )
}

describe('slowdown CDF cards', () => {
  it('says there was no flow of the class at all, with how many flows the runs drew', () => {
    const r = result(cdfs({ ecmp: { '<10 KB': [40, 40, curve], '1–10 MB': [20, 20, curve] }, rps: { '<10 KB': [40, 40, curve], '1–10 MB': [20, 20, curve] } }))
    expect(slowdownCardText(r, 0.5, '≥10 MB', 'load 0.5')).toEqual({
      sub: '',
      empty: 'No flow of ≥10 MB at load 0.5: none of the flows these runs drew (60 flows a line) is this size, so there is no slowdown to plot.',
    })
  })

  it('says flows of the class were drawn but none finished', () => {
    const r = result(cdfs({ ecmp: { '<10 KB': [40, 40, curve], '≥10 MB': [2, 0, []] }, rps: { '<10 KB': [40, 40, curve], '≥10 MB': [1, 0, []] } }))
    expect(slowdownCardText(r, 0.5, '≥10 MB', 'load 0.5').empty).toBe(
      'No flow of ≥10 MB finished at load 0.5: none of the flows of this size (1–2 flows a line) ended before its run did, so there is no slowdown to plot.',
    )
  })

  it('counts the flows each line pools, and says a line of one value is a dot', () => {
    const same = result(cdfs({ ecmp: { '≥10 MB': [1, 1, step(2.5)] }, rps: { '≥10 MB': [1, 1, step(3.1)] } }))
    expect(slowdownCardText(same, 0.5, '≥10 MB', 'load 0.5')).toEqual({ sub: '1 of 1 flow finished, each line · a line of one value is a dot', empty: '' })
    const differ = result(cdfs({ ecmp: { '1–10 MB': [20, 19, curve] }, rps: { '1–10 MB': [20, 20, curve] } }))
    expect(slowdownCardText(differ, 0.5, '1–10 MB', 'load 0.5')).toEqual({ sub: 'finished: ecmp 19 of 20, rps 20 of 20', empty: '' })
  })

  it('reads only the x the cards are at', () => {
    const r = result([...cdfs({ ecmp: { '≥10 MB': [1, 1, curve] } }, 0.8), ...cdfs({ ecmp: { '<10 KB': [5, 5, curve] } }, 0.5)])
    expect(slowdownCardText(r, 0.5, '≥10 MB', 'load 0.5').empty).toMatch(/^No flow of ≥10 MB at load 0\.5: .*\(5 flows a line\)/)
  })
})
