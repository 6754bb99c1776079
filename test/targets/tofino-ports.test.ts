// A Tofino switch's front-panel ports from the testbed's mapping: the bfrt_python scripts that add
// them through the port manager and read back whether they came up (golden files: there is no
// Tofino here), the parser of that read-back, and the checks of speed and FEC per chip.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TofinoMapping } from '../../src-main/contract/testbed-mapping'
import { parsePortStatus, portAddScript, portProblems, portStatusScript, portsNotUp } from '../../src-main/core/targets/tofino/ports'

const GOLDEN = join(import.meta.dirname, '../fixtures/tofino/ports')

function golden(name: string, text: string): void {
  const f = join(GOLDEN, name)
  if (process.env.P4LAB_UPDATE_GOLDEN === '1' || !existsSync(f)) writeFileSync(f, text)
  expect(text).toBe(readFileSync(f, 'utf8'))
}

const mapping = TofinoMapping.parse({
  kind: 'tofino',
  switches: [
    {
      switch: 'leaf0',
      host: 'sde1',
      ports: [
        { port: 2, frontPanel: '2/0', speed: '100G', fec: 'rs' },
        { port: 0, frontPanel: '1/0', speed: '25G', autoneg: 'disable' },
        { port: 1, frontPanel: '1/1', speed: '40G', fec: 'fc', autoneg: 'enable' },
      ],
    },
  ],
  servers: [{ fabricHost: 'h0', host: 'gen1', nic: 'enp1s0f0' }],
})
const ports = mapping.switches[0].ports

describe('Tofino front-panel ports', () => {
  it('adds each mapped port through the port manager with its speed, FEC and auto-negotiation (golden)', () => {
    const s = portAddScript('leaf0', ports)
    golden('leaf0.ports.py', s)
    expect(s).toContain("bfrt.port.port.add(DEV_PORT=d, SPEED='BF_SPEED_100G', FEC='BF_FEC_TYP_REED_SOLOMON', AUTO_NEGOTIATION='PM_AN_DEFAULT', PORT_ENABLE=True)")
    expect(s).toContain("bfrt.port.port.add(DEV_PORT=d, SPEED='BF_SPEED_25G', FEC='BF_FEC_TYP_NONE', AUTO_NEGOTIATION='PM_AN_FORCE_DISABLE', PORT_ENABLE=True)")
    expect(s).toContain("bfrt.port.port_hdl_info.get(CONN_ID=cage, CHNL_ID=lane, print_ents=False).data[b'$DEV_PORT']")
    golden('leaf0.status.py', portStatusScript('leaf0', ports))
  })

  it('reads back which ports came up; a port down, or a read cut short, is named and holds the traffic', () => {
    const all = ['bfrt_python leaf0.status.py', 'up 0 1/0 True', 'up 1 1/1 True', 'up 2 2/0 True', 'p4lab status done leaf0', 'bfrt> exit'].join('\n')
    const ok = parsePortStatus('leaf0', all, ports)
    expect(ok).toEqual({ complete: true, up: [{ port: 2, frontPanel: '2/0' }, { port: 0, frontPanel: '1/0' }, { port: 1, frontPanel: '1/1' }], down: [] })
    expect(portsNotUp('leaf0', ok)).toBeNull()
    const down = parsePortStatus('leaf0', all.replace('up 2 2/0 True', 'up 2 2/0 False'), ports)
    expect(portsNotUp('leaf0', down)).toBe('leaf0: port 2 (2/0) did not come up: check the cable, its speed and FEC on both ends')
    const cut = parsePortStatus('leaf0', 'up 0 1/0 True\nTraceback (most recent call last):', ports)
    expect(cut.complete).toBe(false)
    expect(portsNotUp('leaf0', cut)).toBe('leaf0: the port status read did not finish; ports not known to be up: port 2 (2/0), port 1 (1/1)')
  })

  it('refuses speeds the chip cannot run and FEC the speed does not take', () => {
    expect(portProblems('leaf0', ports)).toEqual([])
    const bad = TofinoMapping.parse({ kind: 'tofino', switches: [{ switch: 'spine0', host: 'sde2', ports: [{ port: 0, frontPanel: '3/0', speed: '400G', fec: 'none' }, { port: 1, frontPanel: '4/0', speed: '100G', fec: 'fc' }] }] }).switches[0].ports
    expect(portProblems('spine0', bad)).toEqual([
      "spine0 port 0 (3/0): 400G needs a Tofino 2; Tofino runs 10G, 25G, 40G, 50G, 100G",
      "spine0 port 0 (3/0): 400G needs Reed-Solomon FEC ('rs')",
      "spine0 port 1 (4/0): Firecode FEC does not run at 100G; use 'rs' or 'none'",
    ])
    expect(portProblems('spine0', bad, 'tofino2')).toEqual(["spine0 port 0 (3/0): 400G needs Reed-Solomon FEC ('rs')", "spine0 port 1 (4/0): Firecode FEC does not run at 100G; use 'rs' or 'none'"])
  })
})

describe('a Tofino mapping against a fabric', () => {
  it('names a switch on no SDE host, a host that is not an SDE host, and a speed the chip cannot run', async () => {
    const { computeControlPlane } = await import('../../src-main/core/controlplane')
    const { buildFabric } = await import('../../src-main/model/topology')
    const { mappedPortProblems } = await import('../../src-main/core/targets/tofino/ports')
    const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 1, spines: 1, hostsPerLeaf: 1, hostLinkBps: 25e9, fabricLinkBps: 100e9, linkDelayNs: 1000 }), 'ecmp')
    const m = TofinoMapping.parse({ kind: 'tofino', switches: [{ switch: 'leaf0', host: 'sde1', ports: [{ port: 0, frontPanel: '1/0', speed: '25G' }, { port: 1, frontPanel: '2/0', speed: '400G', fec: 'rs' }] }] })
    expect(mappedPortProblems(state, m, ['leaf0'], true)).toEqual(["leaf0 port 1 (2/0): 400G needs a Tofino 2; Tofino runs 10G, 25G, 40G, 50G, 100G", 'switch spine0 is on no SDE host of the mapping'])
    // tofino-model has no front panel: only the placement counts there.
    expect(mappedPortProblems(state, m, [], false)).toEqual(['switch leaf0: its host sde1 is not an sde host of the testbed', 'switch spine0 is on no SDE host of the mapping'])
  })
})
