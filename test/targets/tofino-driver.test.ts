// The Tofino driver against a real sshd on this machine as the SDE host. There is no SDE
// here (no bf-p4c, run_switchd.sh, run_bfshell.sh, run_tofino_model.sh): what runs for real
// is the check step (the SDE folders and tools looked up over SSH, a hostile SDE path
// included), the placement rules, the .conf rewrite and ports.json, and a clean teardown.
// Compile, switchd, bfshell configuration and the poll rounds have only run against the
// transcripts of test/fixtures/tofino (tofino-output.test.ts).
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment } from '../../src-main/core/spec'
import { planNetns } from '../../src-main/core/targets/shared/netns'
import { ToolMissingError } from '../../src-main/core/targets/shared/remote'
import { modelPortsJson, rewriteConf } from '../../src-main/core/targets/tofino/driver'
import type { RunTestbed } from '../../src-main/core/targets/driver'
import { buildFabric } from '../../src-main/model/topology'
import { liveProcessesMatching } from '../helpers/sshd'
import { labHost, startTofinoLab, stopTofinoLab, tofinoSession, type TofinoLab } from '../helpers/tofino'

const YAML = `name: tofino-small
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
`

let lab: TofinoLab
let dir: string

beforeAll(async () => {
  lab = await startTofinoLab('tofdrv')
  dir = lab.dir
})
afterAll(() => stopTofinoLab(lab))

const session = (tb: RunTestbed, extraYaml = '') => tofinoSession(lab, YAML + extraYaml, tb, { runId: 77 })
const sdeHost = (id: number, name: string) => labHost(lab, id, name, 'sde')

describe('Tofino driver: check', () => {
  it('needs one sde host per switch of the fabric, and says so', async () => {
    const { s } = session({ name: 'tf', kind: 'tofino', settings: { target: 'model' }, hosts: [sdeHost(1, 'sde1')] })
    await expect(s.check()).rejects.toThrow(/testbed 'tf' has 1 sde host\(s\), and this fabric has 3 switches \(leaf0, leaf1, spine0\): the tofino driver runs one switch per sde host/)
    await s.teardown()
  })

  it('refuses telemetry.int at once, before logging into any host', async () => {
    const hosts = [sdeHost(1, 'sde1'), sdeHost(2, 'sde2'), sdeHost(3, 'sde3')]
    const { s, logs } = session({ name: 'tf', kind: 'tofino', settings: { target: 'model' }, hosts }, 'telemetry: { int: true }\n')
    await expect(s.check()).rejects.toThrow(
      'telemetry.int: INT postcards exist only in the v1model programs (BMv2 testbeds); the TNA programs have no INT option yet. Remove telemetry.int to run on Tofino',
    )
    expect(logs.filter((l) => /sde[123]/.test(l))).toEqual([])
    await s.teardown()
  })

  it('stops at the missing SDE tools, with a hostile $SDE path reaching the host as data, and leaves nothing', async () => {
    const sde = join(dir, `bf-sde-9.13.0 it's "$(touch ${join(dir, 'PWNED')})" \`id\``)
    mkdirSync(sde, { recursive: true })
    const hosts = [sdeHost(1, 'sde1'), sdeHost(2, 'sde2'), sdeHost(3, 'sde3')]
    const { s, logs } = session({ name: 'tf', kind: 'tofino', settings: { target: 'model', sde }, hosts })
    const err = await s.check().then(
      () => null,
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(ToolMissingError)
    expect(err!.message).toMatch(/^\$SDE_INSTALL, bf-p4c, run_switchd\.sh, run_bfshell\.sh, run_tofino_model\.sh are not installed on sde1/)
    // $SDE was found at exactly that path; $SDE_INSTALL (default $SDE/install) was not.
    expect(logs.some((l) => l.includes(`check: $SDE: 9.13.0 (${sde})`))).toBe(true)
    expect(logs.some((l) => /check: \$SDE_INSTALL: missing \(required\)/.test(l))).toBe(true)
    await s.teardown()
    expect(existsSync(join(dir, 'PWNED'))).toBe(false)
    expect(liveProcessesMatching(s.run.key)).toEqual([])
  })
})

describe('Tofino driver: files it writes', () => {
  it('rewrites a bf-p4c .conf to the uploaded folder', () => {
    const build = '/root/.p4lab/build/w1/out/ecmp.tofino'
    const conf = JSON.stringify({
      chip_list: [{ chip_family: 'tofino' }],
      p4_devices: [
        {
          'device-id': 0,
          p4_programs: [
            {
              'program-name': 'ecmp',
              'bfrt-config': `${build}/bf-rt.json`,
              p4_pipelines: [{ p4_pipeline_name: 'pipe', context: `${build}/pipe/context.json`, config: `${build}/pipe/tofino.bin`, path: build }],
            },
          ],
        },
      ],
    })
    const out = JSON.parse(rewriteConf(conf, '/home/u/runs/run-1/ecmp.tofino'))
    const prog = out.p4_devices[0].p4_programs[0]
    expect(prog['bfrt-config']).toBe('/home/u/runs/run-1/ecmp.tofino/bf-rt.json')
    expect(prog.p4_pipelines[0]).toMatchObject({
      context: '/home/u/runs/run-1/ecmp.tofino/pipe/context.json',
      config: '/home/u/runs/run-1/ecmp.tofino/pipe/tofino.bin',
      path: '/home/u/runs/run-1/ecmp.tofino',
    })
  })

  it("maps every DEV_PORT of a switch to its veth in tofino-model's ports.json", () => {
    const parsed = parseExperiment(YAML, { file: 'x.yaml', baseDir: dir, workloadsDir: workloadsDir(), testbeds: ['sim'] })
    if (!parsed.ok) throw new Error('bad yaml')
    const plan = planNetns(computeControlPlane(buildFabric(parsed.spec.topology), 'ecmp'), 'p42dab-')
    const j = JSON.parse(modelPortsJson(plan, 0))
    expect(j.PortToIf).toEqual(plan.switches[0].ports.map((p) => ({ device_port: p.port, if: p.ifname })))
    expect(j.PortToIf).toHaveLength(3)
  })
})
