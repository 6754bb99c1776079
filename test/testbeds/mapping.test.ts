// A testbed's mapping: stored in SQLite with the testbed (and gone with it), read from YAML,
// shown as YAML, errors naming the field and the host or switch at fault, and laid over a fabric.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts } from '../../src-main/core/ssh'
import { openStore } from '../../src-main/core/store'
import { TestbedService } from '../../src-main/core/testbeds'
import type { FabricSpec } from '../../src-main/model/topology'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function open(dbPath: string) {
  const store = openStore(dbPath)
  const svc = new TestbedService({ store, knownHosts: new KnownHosts({ file: join(dbPath, '..', 'known_hosts') }), secrets: new MemorySecretStore(), runnableKinds: () => ['sim', 'bmv2'] })
  return { store, svc }
}

const LEAF_SPINE: FabricSpec = { kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 1, hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }

async function twoHosts(svc: TestbedService) {
  await svc.create({
    name: 'two',
    kind: 'bmv2',
    hosts: [
      { name: 'hostA', address: '10.0.0.1', user: 'root' },
      { name: 'hostB', address: 'hostb.example', port: 2222, user: 'root' },
      { name: 'gen', address: '10.0.0.9', user: 'root', role: 'traffic' },
    ],
  })
}

describe('testbed mappings', () => {
  it('round-trip through SQLite from YAML, are shown as YAML, and go with their testbed', async () => {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-mapping-'))
    dirs.push(d)
    const db = join(d, 'p4lab.db')
    let { store, svc } = open(db)
    await twoHosts(svc)
    expect((await svc.get('two')).mapping).toBeNull()
    const t = await svc.setMapping('two', {
      yaml: `# where the switches go
mapping:
  kind: bmv2
  hosts:
    - { host: hostA, switches: [leaf0, spine0] }
    - { host: hostB, switches: [leaf1, spine1], tunnelAddress: 192.168.5.2 }
`,
    })
    expect(t.mapping).toEqual({ kind: 'bmv2', tunnel: 'vxlan', vniBase: 4000, udpPort: 4789, hosts: [{ host: 'hostA', switches: ['leaf0', 'spine0'] }, { host: 'hostB', switches: ['leaf1', 'spine1'], tunnelAddress: '192.168.5.2' }] })
    store.close()
    ;({ store, svc } = open(db))
    const again = await svc.get('two')
    expect(again.mapping).toEqual(t.mapping)
    expect(again.mappingYaml).toContain('- host: hostB')
    expect(again.mappingYaml).toContain('tunnelAddress: 192.168.5.2')
    // The YAML shown reads back to the same mapping.
    expect((await svc.setMapping('two', { yaml: again.mappingYaml! })).mapping).toEqual(t.mapping)
    const p = svc.previewMapping('two', LEAF_SPINE)
    expect(p.problems).toEqual([])
    expect(p.switches).toEqual(['leaf0', 'leaf1', 'spine0', 'spine1'])
    expect(p.lines[0]).toBe('hostA: switches leaf0, spine0 in namespace <run>s0; fabric hosts h0 (<run>h0); 2 veth pairs, 2 VXLAN tunnels from 10.0.0.1')
    expect(await svc.delete('two')).toBe(true)
    store.close()
    const raw = new Database(db)
    expect(raw.prepare('SELECT COUNT(*) AS n FROM testbed_mappings').get()).toEqual({ n: 0 })
    raw.close()
  })

  it('names the field, host or switch at fault', async () => {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-mapping-'))
    dirs.push(d)
    const { store, svc } = open(join(d, 'p4lab.db'))
    await twoHosts(svc)
    await expect(svc.setMapping('two', { mapping: { kind: 'bmv2', hosts: [{ host: 'hostC', switches: ['leaf0'] }] } })).rejects.toThrow(
      "invalid mapping: mapping.hosts[0].host: the testbed has no host 'hostC' (its hosts: hostA, hostB, gen)",
    )
    await expect(svc.setMapping('two', { mapping: { kind: 'bmv2', hosts: [{ host: 'gen', switches: ['leaf0'] }] } })).rejects.toThrow("mapping.hosts[0].host: 'gen' is a traffic host, not a switch-host host")
    await expect(svc.setMapping('two', { mapping: { kind: 'bmv2', hosts: [{ host: 'hostA', switches: ['leaf0'], tunnelAddress: '10.0.0' }] } })).rejects.toThrow('mapping.hosts[0].tunnelAddress: expected an IPv4 address')
    await expect(svc.setMapping('two', { mapping: { kind: 'tofino', switches: [{ switch: 'leaf0', host: 'hostA', ports: [] }] } })).rejects.toThrow("mapping.kind: this is a bmv2 testbed; its mapping is of kind 'bmv2', not 'tofino'")
    await expect(svc.setMapping('two', { yaml: 'mapping:\n  kind: bmv2\n   hosts: []\n' })).rejects.toThrow('mapping YAML, line 2: Nested mappings are not allowed in compact mappings')
    await expect(svc.setMapping('two', { mapping: { kind: 'bmv2', hosts: [{ host: 'hostA', switches: ['leaf0'] }, { host: 'hostB', switches: ['leaf0', 'spine0'] }] } })).rejects.toThrow('mapping.hosts[1].switches: switch leaf0 is also on hostA; place it on one host')
    // Typed in a file: the line of each problem, an unknown field with the known ones, the value refused.
    await expect(
      svc.setMapping('two', {
        yaml: `mapping:
  kind: bmv2
  hosts:
    - { host: hostA, swiches: [leaf0, spine0] }
    - host: hostB
      switches: [leaf1, spine1]
      tunnelAddress: 192.168.5.300
`,
      }),
    ).rejects.toThrow(
      "invalid mapping: line 4: mapping.hosts[0].switches: expected a list of switch names; line 4: mapping.hosts[0].swiches: unknown field 'swiches'; expected one of host, switches, tunnelAddress; " +
        "line 7: mapping.hosts[1].tunnelAddress: expected an IPv4 address (the tunnel end on this host), got '192.168.5.300'",
    )
    await expect(svc.setMapping('two', { yaml: 'mapping:\n  kind: bmv2\n  hosts:\n    - { host: hostA, switches: [leaf0] }\n    - { host: hostZ, switches: [leaf1] }\n' })).rejects.toThrow(
      "invalid mapping: line 5: mapping.hosts[1].host: the testbed has no host 'hostZ' (its hosts: hostA, hostB, gen)",
    )
    await expect(svc.setMapping('two', { mapping: { kind: 'bmv2', vniBase: 4000, hosts: [{ host: 'hostA', switches: ['leaf0'] }], udpport: 4789 } })).rejects.toThrow(
      "invalid mapping: mapping.udpport: unknown field 'udpport'; expected one of kind, tunnel, vniBase, udpPort, hosts",
    )
    // Against a fabric: a switch it lacks, switches on no host, a host without an IPv4 address for its tunnels.
    const p = svc.previewMapping('two', LEAF_SPINE, { kind: 'bmv2', hosts: [{ host: 'hostA', switches: ['leaf0', 'leaf9'] }, { host: 'hostB', switches: ['spine0'] }] })
    expect(p.problems).toEqual([
      "hosts[0] (hostA): the fabric has no switch 'leaf9' (its switches: leaf0, leaf1, spine0, spine1)",
      'hosts[1] (hostB): its SSH address hostb.example is not an IPv4 address; give tunnelAddress, the address the other hosts reach it at',
      'switches leaf1, spine1 are on no host: add them to a host of the mapping',
    ])
    store.close()
  })
})

describe('host addresses', () => {
  it('read host:port, user@host:port and [v6]:port as address, user and port; a disagreeing part is refused at its field', async () => {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-mapping-'))
    dirs.push(d)
    const { store, svc } = open(join(d, 'p4lab.db'))
    const t = await svc.create({
      name: 'addr',
      kind: 'bmv2',
      hosts: [
        { name: 'a', address: '127.0.0.1:1', user: 'root' },
        { name: 'b', address: 'p4@switch.example:2222', role: 'traffic' },
        { name: 'c', address: '[fe80::1]:2200', user: 'root', role: 'traffic' },
        { name: 'd', address: 'plain.example', user: 'root', role: 'traffic' },
      ],
    })
    expect(t.hosts.map((h) => `${h.user}@${h.address}:${h.port}`)).toEqual(['root@127.0.0.1:1', 'p4@switch.example:2222', 'root@fe80::1:2200', 'root@plain.example:22'])
    await expect(svc.create({ name: 'x', kind: 'bmv2', hosts: [{ name: 'a', address: '127.0.0.1:1', port: 22, user: 'root' }] })).rejects.toThrow(
      'hosts[0].address: "127.0.0.1:1" is not a host name or an IP address (it holds port 1, which the user or port field contradicts: give each once)',
    )
    store.close()
  })
})
