// The LetFlow template parses into the comparison it describes, and its comments cite papers
// by title and venue and no document outside the repository.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expandRuns, formatSpecError, parseExperiment } from '../../src-main/core/spec'

const root = resolve(__dirname, '../..')
const dir = join(root, 'resources/experiments')
const file = 'letflow-asymmetric-leafspine.yaml'
const text = readFileSync(join(dir, file), 'utf8')

describe(file, () => {
  it('parses into ECMP, CONGA, HULA and LetFlow at three loads on the asymmetric leaf-spine', () => {
    const r = parseExperiment(text, { file, baseDir: dir, workloadsDir: join(root, 'resources/workloads') })
    if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
    const spec = r.spec
    expect(spec.schemes).toEqual(['ecmp', 'conga', 'hula', 'letflow'])
    expect(spec.workload).toMatchObject({ loads: [0.3, 0.5, 0.7] })
    expect(spec.topology).toMatchObject({ kind: 'leaf-spine', leaves: 2, spines: 2, hostLinkBps: 10e9, fabricLinkBps: 40e9, rates: { 'spine1-leaf1': 10e9 } })
    expect(spec.params.flowletGapNs).toBe(100_000)
    expect(expandRuns(spec)).toHaveLength(12)
  })

  it('starts with a one-line description and cites the three papers by title and venue', () => {
    expect(text).toMatch(/^# \S.*\n/)
    const comments = text.split('\n').filter((l) => l.startsWith('#')).map((l) => l.slice(1).trim()).join(' ')
    expect(comments).toContain('"Let It Flow: Resilient Asymmetric Load Balancing with Flowlet Switching" (USENIX NSDI 2017)')
    expect(comments).toContain('"CONGA: Distributed Congestion-Aware Load Balancing for Datacenters" (ACM SIGCOMM 2014)')
    expect(comments).toContain('"HULA: Scalable Load Balancing Using Programmable Data Planes" (ACM SOSR 2016)')
    expect(comments).toMatch(/sweep it/)
    expect(text).not.toMatch(/seed[ -]?00\d|PARAMETERS\.md|DESIGN §/)
  })
})
