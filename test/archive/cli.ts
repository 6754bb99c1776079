// The built p4lab bin in a child process, with its own P4LAB_HOME.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../helpers/start'

export const BIN = join(ROOT, 'bin', 'p4lab.cjs')

export function p4lab(args: string[], cwd: string, home = join(cwd, 'home')) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, P4LAB_HOME: home },
    timeout: 180_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** 2 schemes × 2 loads × 2 seeds of a small leaf-spine: quick, but a real sweep. */
export const SWEEP_YAML = `name: rt-sweep
description: round-trip test sweep
tags: [paper, rt]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.6], flows: 30 }
seeds: [1, 2]
`
