// The pure half of the BMv2 rate calibration: the path measured, the offered load, the scale
// chosen from a capacity, and the commands that bring a running switch to the file at that
// scale (checked by replaying them on a model of the switch's tables, registers and queues).
import { describe, expect, it } from 'vitest'
import { cliCommandLines, computeControlPlane, renderCli, type CpScheme } from '../../src-main/core/controlplane'
import { parseExperiment } from '../../src-main/core/spec'
import { workloadsDir } from '../../src-main/core/paths'
import { CALIBRATION_HEADROOM, chooseRateScale, longestPath, offeredLoad, roundDown2 } from '../../src-main/core/targets/bmv2/calibrate'
import { planNetns, runPrefix } from '../../src-main/core/targets/remote/netns'
import { rescaleCommands, withoutQueueRates } from '../../src-main/core/targets/bmv2/rescale'
import { splitFlows } from '../../src-main/core/targets/remote/remote'
import { buildFabric, type FabricSpec } from '../../src-main/model/topology'

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 20e9, linkDelayNs: 1000 }
const LS: FabricSpec = { kind: 'leaf-spine', leaves: 4, spines: 2, hostsPerLeaf: 4, ...RATES }
const FAT4: FabricSpec = { kind: 'fat-tree', k: 4, ...RATES }

function spec(workload: string) {
  const yaml = `name: cal
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: ${workload}
seeds: [1]
`
  const r = parseExperiment(yaml, { file: 'x.yaml', baseDir: '/tmp', workloadsDir: workloadsDir(), testbeds: ['sim'] })
  if (!r.ok) throw new Error(JSON.stringify(r.errors))
  return r.spec
}

describe('the path the calibration measures', () => {
  it('goes from the first host to a host under another leaf of a leaf-spine: three switches', () => {
    const state = computeControlPlane(buildFabric(LS), 'ecmp')
    const plan = planNetns(state, runPrefix(1, 'ab'))
    const p = longestPath(state, plan)
    expect(p.src).toBe(plan.hosts[0])
    expect(p.dst.tor).not.toBe(p.src.tor)
    expect(p.switches).toBe(3)
  })

  it('crosses the core of a fat-tree, to another pod: five switches', () => {
    const state = computeControlPlane(buildFabric(FAT4), 'ecmp')
    const plan = planNetns(state, runPrefix(1, 'ab'))
    const p = longestPath(state, plan)
    expect(p.switches).toBe(5)
    // k=4: 4 hosts per pod, so the first host of another pod is host 4 or later.
    expect(p.dst.index).toBeGreaterThanOrEqual(4)
  })
})

describe('the offered load', () => {
  it('Poisson: load x host link rate for every host that sends', () => {
    const s = spec('{ kind: web-search, load: 0.3, flows: 600 }')
    const o = offeredLoad(s, 0.3, splitFlows(600, 16))
    expect(o).toEqual({ senders: 16, perHostBps: 0.3 * 10e9, totalBps: 16 * 0.3 * 10e9 })
    // Fewer flows than hosts: the hosts without a flow send nothing.
    expect(offeredLoad(s, 0.3, splitFlows(5, 16)).senders).toBe(5)
  })

  it('long-lived flows: the whole host link of every host', () => {
    const s = spec('{ kind: long-lived, flows: 4 }')
    expect(offeredLoad(s, 1, splitFlows(4, 16))).toEqual({ senders: 16, perHostBps: 10e9, totalBps: 16 * 10e9 })
  })
})

describe('choosing the rate scale', () => {
  // The quickstart on a 2-core host: the ceiling's 0.05 offers 2.4 Gb/s to switches that carried 150 Mb/s.
  const QUICK = { fastestBps: 20e9, ceilingBps: 1e9, offeredBps: 16 * 0.3 * 10e9 }

  it('rounds down to two significant digits, never up', () => {
    expect(roundDown2(0.0033912)).toBe(0.0033)
    expect(roundDown2(0.05)).toBe(0.05)
    expect(roundDown2(0.0999999)).toBe(0.099)
    expect(roundDown2(1)).toBe(1)
    expect(roundDown2(123)).toBe(120)
    for (const x of [0.00251, 0.7, 0.0301, 1e-7 * 3.3]) expect(roundDown2(x)).toBeLessThanOrEqual(x)
    expect(() => roundDown2(0)).toThrow(RangeError)
  })

  it('lowers the scale until the offered load fits the headroom of the measured capacity', () => {
    const c = chooseRateScale({ ...QUICK, capacityBps: 150e6 })
    expect(c.reason).toBe('capacity')
    expect(c.ceilingScale).toBe(0.05)
    expect(c.scale).toBe(roundDown2((CALIBRATION_HEADROOM * 150e6) / QUICK.offeredBps))
    expect(c.offeredBps).toBeLessThanOrEqual(CALIBRATION_HEADROOM * 150e6)
    expect(c.utilization!).toBeLessThanOrEqual(CALIBRATION_HEADROOM)
    expect(c.warning).toBeNull()
    expect(c.why).toMatch(/lowered from the ceiling's 0.05 to 0.0025 so the offered load fits 80 % of what the switches forwarded; the agents offer 120 Mb\/s, 80 % of the 150 Mb\/s/)
  })

  it("keeps the ceiling's scale when the offered load already fits", () => {
    const c = chooseRateScale({ ...QUICK, offeredBps: 16 * 0.3 * 100e6, capacityBps: 900e6 })
    expect(c).toMatchObject({ scale: 0.05, reason: 'ceiling', warning: null })
    expect(c.why).toMatch(/^the rate ceiling's scale 0.05 fits; the agents offer 24 Mb\/s, 3 % of the 900 Mb\/s/)
  })

  it('keeps a fixed scale, and warns when its offered load exceeds the headroom of what was measured', () => {
    const over = chooseRateScale({ ...QUICK, fixedScale: 0.01, capacityBps: 150e6 })
    expect(over).toMatchObject({ scale: 0.01, reason: 'fixed' })
    expect(over.offeredBps).toBeCloseTo(480e6)
    expect(over.warning).toMatch(/^the fixed rate scale 0.01 offers 480 Mb\/s, more than 80 % of the 150 Mb\/s the switches forwarded in the calibration: .* \(a scale of 0.0025 would fit\)$/)
    const under = chooseRateScale({ ...QUICK, fixedScale: 0.002, capacityBps: 150e6 })
    expect(under).toMatchObject({ scale: 0.002, reason: 'fixed', warning: null })
    // Not measured: nothing to compare with, no warning.
    expect(chooseRateScale({ ...QUICK, fixedScale: 0.01, capacityBps: null })).toMatchObject({ scale: 0.01, warning: null, utilization: null })
  })

  it("without a measurement: the ceiling's scale, with a warning when the calibration was wanted", () => {
    const missing = chooseRateScale({ ...QUICK, capacityBps: null, unmeasured: { why: 'iperf3 is not installed on sw1', warn: true } })
    expect(missing).toMatchObject({ scale: 0.05, reason: 'ceiling', utilization: null })
    expect(missing.warning).toBe('the rate scale was not calibrated (iperf3 is not installed on sw1): the offered load 2400 Mb/s may exceed what the switches can forward')
    const off = chooseRateScale({ ...QUICK, capacityBps: null, unmeasured: { why: 'calibration is off', warn: false } })
    expect(off.warning).toBeNull()
    expect(off.why).toMatch(/not measured: calibration is off$/)
  })

  it('refuses nonsense inputs by name', () => {
    expect(() => chooseRateScale({ ...QUICK, capacityBps: 0 })).toThrow(/capacity must be positive/)
    expect(() => chooseRateScale({ ...QUICK, capacityBps: 1e6, headroom: 1.5 })).toThrow(/headroom/)
  })
})

interface SwitchModel {
  tables: Map<string, string[]>
  defaults: Map<string, string>
  registers: Map<string, string>
  queues: Map<string, string>
  other: string[]
}

/** A switch as far as the rescale commands touch it: entries per table (a multiset), defaults, registers, queues, the rest in order. */
function model(commands: readonly string[], start?: SwitchModel): SwitchModel {
  const m: SwitchModel = start ?? { tables: new Map(), defaults: new Map(), registers: new Map(), queues: new Map(), other: [] }
  for (const c of commands) {
    const [verb, a, ...rest] = c.split(/\s+/)
    if (verb === 'table_add') m.tables.set(a, [...(m.tables.get(a) ?? []), rest.join(' ')])
    else if (verb === 'table_clear') m.tables.set(a, [])
    else if (verb === 'table_set_default') m.defaults.set(a, rest.join(' '))
    else if (verb === 'register_write') m.registers.set(`${a}[${rest[0]}]`, rest[1])
    else if (verb === 'set_queue_rate' || verb === 'set_queue_depth') m.queues.set(`${verb} ${rest[0]}`, a)
    else m.other.push(c)
  }
  for (const [t, e] of m.tables) m.tables.set(t, [...e].sort())
  return m
}

describe('bringing a running switch to the file at the chosen scale', () => {
  const cases: Array<[CpScheme, FabricSpec]> = [
    ['dhlb', LS],
    ['floodgate', LS],
    ['ecmp', FAT4],
    ['hula', LS],
  ]
  for (const [scheme, fabric] of cases) {
    it(`${scheme}: configured without queue rates at the ceiling's scale, then rescaled, equals the file at the new scale`, () => {
      const state = computeControlPlane(buildFabric(fabric), scheme)
      for (const sw of state.switches.slice(0, 3)) {
        const before = cliCommandLines(renderCli(state, sw.name, undefined, { ceilingBps: 1e9 }))
        const after = cliCommandLines(renderCli(state, sw.name, undefined, { ceilingBps: 1e9, scale: 0.0031 }))
        const configured = withoutQueueRates(before)
        expect(configured.some((c) => c.startsWith('set_queue_rate'))).toBe(false)
        const fix = rescaleCommands(configured, after)
        expect(model(fix, model(configured))).toEqual(model(after))
        // Multicast groups and mirroring are never redone.
        expect(fix.filter((c) => /^(mc_|mirroring)/.test(c))).toEqual([])
        // Queue rates at the new scale: 20 Gb/s x 0.0031 = 62 Mb/s in 1500-byte packets.
        if (sw.ports.some((p) => p.bps === 20e9)) expect(fix).toContain(`set_queue_rate ${Math.round((20e9 * 0.0031) / 8 / 1500)} ${sw.ports.find((p) => p.bps === 20e9)!.port}`)
      }
    })
  }

  it('DHLB: the load-degree table depends on the scale, so it is cleared and filled again; other tables are left alone', () => {
    const state = computeControlPlane(buildFabric(LS), 'dhlb')
    const before = cliCommandLines(renderCli(state, 'leaf0', undefined, { ceilingBps: 1e9 }))
    const after = cliCommandLines(renderCli(state, 'leaf0', undefined, { ceilingBps: 1e9, scale: 0.0031 }))
    const fix = rescaleCommands(withoutQueueRates(before), after)
    const cleared = fix.filter((c) => c.startsWith('table_clear'))
    expect(cleared).toHaveLength(1)
    expect(cleared[0]).toMatch(/loadDegree$/)
    const table = cleared[0].split(' ')[1]
    expect(fix.filter((c) => c.startsWith('table_add')).every((c) => c.split(' ')[1] === table)).toBe(true)
  })

  it('at an unchanged scale only the queue rates and the register resets are sent', () => {
    const state = computeControlPlane(buildFabric(LS), 'floodgate')
    const file = cliCommandLines(renderCli(state, 'leaf0', undefined, { ceilingBps: 1e9 }))
    const fix = rescaleCommands(withoutQueueRates(file), file)
    expect(fix.every((c) => c.startsWith('set_queue_rate') || c.startsWith('register_write'))).toBe(true)
    expect(fix.filter((c) => c.startsWith('set_queue_rate'))).toEqual(file.filter((c) => c.startsWith('set_queue_rate')))
    expect(fix.some((c) => c.startsWith('register_write'))).toBe(true)
  })

  it('a difference it cannot redo on a running switch is an error naming the command', () => {
    expect(() => rescaleCommands(['mc_mgrp_create 1', 'mc_node_create 0 1 2'], ['mc_mgrp_create 1', 'mc_node_create 0 1 3'])).toThrow(
      /`mc_node_create 0 1 3` differs at the new rate scale; p4lab cannot redo a mc_node_create command on a running switch/,
    )
  })
})
