import { describe, expect, it } from 'vitest'
import { parseExperiment } from '../../src-main/core/spec'
import { workloadsDir } from '../../src-main/core/paths'
import { configKey } from '../../src-main/core/store/revisions'

// runner: in the experiment file: where the cells run, checked like every other field, and
// left out of what a run computes (the config key).
const BASE = `name: r
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 40 }
`
const parse = (extra: string, testbeds = ['sim']) => parseExperiment(BASE + extra + '\n', { file: 'r.yaml', baseDir: workloadsDir(), workloadsDir: workloadsDir(), testbeds })
const errors = (extra: string, testbeds?: string[]) => {
  const p = parse(extra, testbeds)
  return p.ok ? [] : p.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`)
}

describe('runner: in the experiment file', () => {
  it('reads a Slurm runner with its options', () => {
    const p = parse('runner: { kind: slurm, cluster: hpc, partition: compute, account: lab, time: "1-12:00", cpusPerTask: 2, maxParallel: 50 }')
    expect(p.ok && p.spec.runner).toEqual({ kind: 'slurm', cluster: 'hpc', partition: 'compute', account: 'lab', time: '1-12:00', cpusPerTask: 2, maxParallel: 50 })
    const minutes = parse('runner: { kind: slurm, cluster: hpc, time: 30 }')
    expect(minutes.ok && minutes.spec.runner).toEqual({ kind: 'slurm', cluster: 'hpc', time: '30' })
    const none = parse('')
    expect(none.ok && 'runner' in none.spec).toBe(false)
  })

  it('names the field, its line and what to write for each bad value', () => {
    expect(errors('runner: { kind: pbs }')).toEqual(["6:17 runner.kind: expected one of local, slurm, got 'pbs'"])
    expect(errors('runner: { kind: slurm }')).toEqual(['6:9 runner.cluster: required field is missing; expected the name of a saved Slurm cluster (p4lab cluster list)'])
    expect(errors('runner: { kind: slurm, cluster: hpc, time: soon }')).toEqual(["6:44 runner.time: expected a Slurm time limit such as 30 (minutes), 1:00:00 or 1-12 (days-hours), got 'soon'"])
    expect(errors('runner: { kind: slurm, cluster: hpc, maxParallel: 0, cpus: 2 }')).toEqual([
      '6:51 runner.maxParallel: expected a positive integer (array tasks running at once), got 0',
      "6:54 runner.cpus: unknown field 'cpus'; expected one of kind, cluster, partition, account, time, cpusPerTask, maxParallel",
    ])
    expect(errors('runner: { kind: local, cluster: hpc }')).toEqual(["6:24 runner.cluster: unknown field 'cluster'; expected one of kind"])
    expect(errors('runner: slurm')).toEqual(['6:9 runner: expected a mapping { kind: slurm, cluster: NAME, ... }, got \'slurm\''])
  })

  it('refuses a Slurm runner for an experiment on a testbed', () => {
    const yaml = (BASE + 'runner: { kind: slurm, cluster: hpc }\n').replace('testbed: sim', 'testbed: lab1')
    const p = parseExperiment(yaml, { file: 'r.yaml', baseDir: workloadsDir(), workloadsDir: workloadsDir(), testbeds: ['sim', 'lab1'] })
    expect(p.ok ? [] : p.errors.map((e) => `${e.path}: ${e.message}`)).toEqual(["runner.kind: a Slurm runner runs simulator cells only, and this experiment runs on testbed 'lab1'; remove runner: or use testbed: sim"])
  })

  it('is not part of the config key: moving a sweep to a cluster leaves its runs current', () => {
    const a = parse('')
    const b = parse('runner: { kind: slurm, cluster: hpc, maxParallel: 4 }')
    expect(a.ok && b.ok).toBe(true)
    if (a.ok && b.ok) expect(configKey(b.spec)).toBe(configKey(a.spec))
  })
})
