// One cell's workload as the testbed agents run it (BMv2 and Tofino share it): the split of the
// flows over the hosts, each host's destinations under the simulator's rule, and the kinds the
// agents cannot run yet named in the error.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSpecError, parseExperiment, type ExperimentSpec } from '../../src-main/core/spec'
import { AGENT_PORT, CLIENT_STREAM_BASE, agentWork, flowsPerHost } from '../../src-main/core/targets/shared/workload'

const workloadsDir = resolve(__dirname, '../../resources/workloads')
let tmp: string
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'p4lab-agent-workload-'))
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

// 2 leaves × 2 hosts: hosts 0, 1 on leaf 0; hosts 2, 3 on leaf 1.
function spec(workload: string): ExperimentSpec {
  const text = `name: x\ntopology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\nworkload: ${workload}\n`
  const r = parseExperiment(text, { file: 'x.yaml', baseDir: tmp, workloadsDir })
  if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
  return r.spec
}
const hosts = [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.1.1' }, { ip: '10.0.1.2' }]
const opts = { linkBps: 5e8, cdfFile: (i: number) => `/run/h${i}/workload.cdf`, target: 'bmv2' }

describe('agentWork', () => {
  it('splits a Poisson cell over the hosts, at the cell load, to the hosts of other racks', () => {
    const s = spec('{ kind: web-search, load: [0.3, 0.7], flows: 6 }')
    expect(flowsPerHost(s, 4)).toEqual([2, 2, 1, 1])
    const work = agentWork(s, 0.7, hosts, opts)
    expect(work.map((w) => w.index)).toEqual([0, 1, 2, 3])
    expect(work[0]).toEqual({
      index: 0,
      dsts: [
        { host: '10.0.1.1', port: AGENT_PORT },
        { host: '10.0.1.2', port: AGENT_PORT },
      ],
      workload: { kind: 'poisson', cdf: '/run/h0/workload.cdf', load: 0.7, linkBps: 5e8, flows: 2, stream: CLIENT_STREAM_BASE },
    })
    expect(work[3].dsts.map((d) => d.host)).toEqual(['10.0.0.1', '10.0.0.2'])
    expect(work[3].workload).toMatchObject({ flows: 1, stream: CLIENT_STREAM_BASE + 3, cdf: '/run/h3/workload.cdf' })
  })

  it('gives no client to a host with no Poisson flows', () => {
    const work = agentWork(spec('{ kind: web-search, load: 0.5, flows: 2 }'), 0.5, hosts, opts)
    expect(work.map((w) => w.index)).toEqual([0, 1])
  })

  it('runs long-lived flows on every host, at least one each, with their size and the run length', () => {
    const s = spec('{ kind: long-lived, flows: 2, size: 1MB }')
    const work = agentWork(s, 1, hosts, opts)
    expect(work.map((w) => w.workload)).toEqual(
      [1, 1, 1, 1].map((flows) => ({ kind: 'long-lived', flows, sizeBytes: 1_000_000, durationS: s.stopAfterNs / 1e9 })),
    )
  })

  it('names the workload kinds the agents do not run yet, and the target', () => {
    const s = spec('{ kind: permutation }')
    expect(() => agentWork(s, 1, hosts, { ...opts, target: 'tofino' })).toThrow('the tofino driver does not run permutation workloads yet')
  })
})
