// A Tofino hardware run with a port mapping, up to the end of deploy, against a real sshd on this
// machine as every SDE host, with a stand-in SDE (test/fixtures/tofino/standin): bf-p4c writes
// the output folder without compiling, run_switchd.sh records which program it loads and stays
// up, and run_bfshell.sh runs p4lab's port and frame-check scripts for real against a model of
// the bfrt objects they use and of the cables between the switches (what it assumes about
// bfrt_python's output is written at its top). The scheme's own configure script is only
// recorded as having run. What runs for real: check, build through the artifact cache, the
// uploads, the check program's switchd per switch, the ports added and read back, the frame
// check's rounds and its judgement, the switch to the scheme's program, teardown.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import type { RunTestbed } from '../../src-main/core/targets/driver'
import { buildFabric } from '../../src-main/model/topology'
import { liveProcessesMatching } from '../helpers/sshd'
import { labHost, startTofinoLab, stopTofinoLab, tofinoSession, type TofinoLab } from '../helpers/tofino'

const STANDIN = join(import.meta.dirname, '../fixtures/tofino/standin')
const TOPOLOGY = { kind: 'leaf-spine', leaves: 2, spines: 1, hostsPerLeaf: 1, hostLinkBps: 25e9, fabricLinkBps: 100e9, linkDelayNs: 1000 } as const
const YAML = `name: tofino-ports
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 25Gbps, fabricLink: 100Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
`
// leaf0: 0 h0, 1 spine0/0; leaf1: 0 h1, 1 spine0/1; spine0: 0 leaf0/1, 1 leaf1/1 (asserted below).
const state = computeControlPlane(buildFabric(TOPOLOGY), 'ecmp')
const fp = (port: number) => `${port + 1}/0`

let lab: TofinoLab
let dir: string

beforeAll(async () => {
  lab = await startTofinoLab('tofbring')
  dir = lab.dir
})
afterAll(() => stopTofinoLab(lab))

/** The cables as the fabric draws them, front panel to front panel, both ways. */
function fabricWires(): Record<string, string> {
  const w: Record<string, string> = {}
  for (const s of state.switches) for (const p of s.ports) if (p.facing !== 'host') w[`${s.name} ${fp(p.port)}`] = `${p.peer} ${fp(p.peerPort)}`
  return w
}

/** A stand-in SDE folder of its own, with its cables and the ports that stay down. */
function standinSde(name: string, wires: Record<string, string>, down: string[]): string {
  const sde = join(dir, `bf-sde-9.13.0-${name}`)
  mkdirSync(join(sde, 'install', 'bin'), { recursive: true })
  for (const f of ['run_bfshell.sh', 'run_switchd.sh', 'run_tofino_model.sh', 'bfshell_standin.py']) copyFileSync(join(STANDIN, f), join(sde, f))
  copyFileSync(join(STANDIN, 'bf-p4c'), join(sde, 'install', 'bin', 'bf-p4c'))
  writeFileSync(join(sde, 'state.json'), JSON.stringify({ wires, down, ports: {}, log: [] }))
  writeFileSync(join(sde, 'switchd.log'), '')
  return sde
}

const host = (id: number, name: string, role: string) => labHost(lab, id, name, role)

function testbed(sde: string): RunTestbed {
  const sdeHosts = state.switches.map((s, i) => host(i + 1, `sde${i + 1}`, 'sde'))
  const traffic = state.hosts.map((_, i) => host(10 + i, `t${i}`, 'traffic'))
  const mapping = {
    kind: 'tofino',
    switches: state.switches.map((s, i) => ({ switch: s.name, host: `sde${i + 1}`, ports: s.ports.map((p) => ({ port: p.port, frontPanel: fp(p.port), speed: '100G', fec: 'rs' })) })),
  }
  return { name: 'tfhw', kind: 'tofino', settings: { target: 'hardware', sde }, hosts: [...sdeHosts, ...traffic], mapping }
}

async function runToDeploy(sde: string) {
  const { s, logs, events } = tofinoSession(lab, YAML, testbed(sde), { runId: 91, driver: { portsUpTimeoutMs: 2000, portsPollMs: 200, frameSettleMs: 50 } })
  let error: Error | null = null
  try {
    await s.check()
    await s.build()
    await s.deploy()
  } catch (e) {
    error = e as Error
  } finally {
    await s.teardown()
  }
  expect(liveProcessesMatching(s.run.key)).toEqual([])
  const st = JSON.parse(readFileSync(join(sde, 'state.json'), 'utf8')) as { log: string[] }
  const switchd = readFileSync(join(sde, 'switchd.log'), 'utf8').trim().split('\n').filter(Boolean)
  return { error, logs, events, log: st.log, switchd }
}

describe('Tofino hardware: ports up and a frame over every link before the scheme is configured', () => {
  it('the fabric is the one the cables below are drawn for', () => {
    expect(state.switches.map((s) => `${s.name}: ${s.ports.map((p) => `${p.port}>${p.peer}/${p.peerPort}`).join(' ')}`)).toEqual([
      'leaf0: 0>h0/0 1>spine0/0',
      'leaf1: 0>h1/0 1>spine0/1',
      'spine0: 0>leaf0/1 1>leaf1/1',
    ])
  })

  it('every port comes up and every burst lands where the fabric says: the run goes on to configure the scheme', async () => {
    const r = await runToDeploy(standinSde('ok', fabricWires(), []))
    expect(r.error).toBeNull()
    // The check program first on every switch, then the scheme's.
    expect(r.switchd.filter((l) => l.includes('p4lab_cabling.conf'))).toHaveLength(3)
    expect(r.switchd.filter((l) => l.includes('ecmp.conf'))).toHaveLength(3)
    expect(r.switchd.findIndex((l) => l.includes('ecmp.conf'))).toBeGreaterThan(r.switchd.length - 1 - [...r.switchd].reverse().findIndex((l) => l.includes('p4lab_cabling.conf')))
    expect(r.log).toContain('leaf0 port add 2/0 BF_SPEED_100G BF_FEC_TYP_REED_SOLOMON PM_AN_DEFAULT')
    expect(r.log).toContain('leaf0 burst 8 out of 2/0 reaches spine0 1/0')
    expect(r.log).toContain('spine0 burst 24 out of 2/0 reaches leaf1 2/0')
    expect(r.log.filter((l) => l.startsWith('configure '))).toEqual(['configure leaf0.py', 'configure leaf1.py', 'configure spine0.py'])
    expect(r.logs).toContain("frames: every mapped port's frames arrived where the fabric says (6 ports)")
    expect(r.logs).toContain('frames: round 2 of 2: bursts out of leaf0 port 1, leaf1 port 1, spine0 port 1')
    expect(r.events.find((e) => e.kind === 'cabling' && (e.detail as { ok?: boolean }).ok !== undefined)?.detail).toMatchObject({ ok: true, looked: true, ports: 6, problems: [] })
  }, 600_000)

  it('a port that stays down stops the run before the frame check, named with its switch and front-panel port', async () => {
    const r = await runToDeploy(standinSde('down', fabricWires(), ['leaf1 2/0']))
    expect(r.error?.message).toBe(
      "leaf1: port 1 (2/0) did not come up: check the cable, its speed and FEC on both ends (waited 2 s on sde2). The scheme's program was not configured and no traffic was sent.",
    )
    expect(r.log.filter((l) => l.startsWith('configure ') || l.includes(' burst '))).toEqual([])
    expect(r.switchd.filter((l) => l.includes('ecmp.conf'))).toEqual([])
  }, 600_000)

  it("two crossed cables are named, end by end, and the scheme's program is never started", async () => {
    const w = fabricWires()
    // The two leaves' uplinks swapped at the spine: leaf0 2/0 goes to spine0 2/0, leaf1 2/0 to spine0 1/0.
    w['leaf0 2/0'] = 'spine0 2/0'
    w['spine0 2/0'] = 'leaf0 2/0'
    w['leaf1 2/0'] = 'spine0 1/0'
    w['spine0 1/0'] = 'leaf1 2/0'
    const r = await runToDeploy(standinSde('crossed', w, []))
    expect(r.error?.message).toBe(
      "frame check: 4 of 6 ports' frames went wrong: " +
        'leaf0 port 1 reaches spine0 port 1, expected spine0 port 0 (front panel leaf0 2/0 is cabled to spine0 2/0, expected spine0 1/0); ' +
        'leaf1 port 1 reaches spine0 port 0, expected spine0 port 1 (front panel leaf1 2/0 is cabled to spine0 1/0, expected spine0 2/0); ' +
        'spine0 port 0 reaches leaf1 port 1, expected leaf0 port 1 (front panel spine0 1/0 is cabled to leaf1 2/0, expected leaf0 2/0); ' +
        'spine0 port 1 reaches leaf0 port 1, expected leaf1 port 1 (front panel spine0 2/0 is cabled to leaf0 2/0, expected leaf1 2/0). ' +
        "The scheme's program was not configured and no traffic was sent.",
    )
    expect(r.log.filter((l) => l.startsWith('configure '))).toEqual([])
    expect(r.switchd.filter((l) => l.includes('ecmp.conf'))).toEqual([])
    expect(r.logs).toContain('frames: leaf0 port 1 reaches spine0 port 1, expected spine0 port 0 (front panel leaf0 2/0 is cabled to spine0 2/0, expected spine0 1/0)')
  }, 600_000)
})
