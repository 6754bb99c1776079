// Runs through the core on a BMv2 testbed of two hosts (two namespaces on this machine, each
// with its own sshd, joined by a veth), with the fabric mapped across both: the run's check step
// brings the mapped fabric up (VXLAN between the hosts) and sends a frame over every link.
// - On a host whose `ip` crosses the first two veth pairs it makes (a miswired switch host),
//   the run fails at its check step naming the wrong cables; nothing is deployed.
// With the cabling right, the run deploys on both hosts: bmv2-multihost-run.test.ts.
// There is no simple_switch or p4c here: stand-ins answer the check's tool probes (helpers/bmv2.ts).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { probeNetns } from '../helpers/netns'
import { startTwoHostLab, type TwoHostLab } from '../helpers/twohost'

const probe = probeNetns()
if (!probe.ok) throw new Error(`the two-host tests need network namespaces: ${probe.reason}`)

/** An `ip` that swaps the switch ends of the first two veth pairs of every batch that makes veths: two crossed cables. */
const CROSSING_IP = `#!/bin/sh
case " $* " in
*" -batch "*)
  awk '/^link add [^ ]+ type veth peer/ && n < 2 { names[n++] = $3; swap[NR] = 1 }
       { buf[NR] = $0 }
       END { for (i = 1; i <= NR; i++) { l = buf[i]; if (swap[i] && n == 2) { split(l, w, " "); o = (w[3] == names[0]) ? names[1] : names[0]; sub(" " w[3] " ", " " o " ", l) } print l } }' | /usr/sbin/ip "$@" ;;
*) exec /usr/sbin/ip "$@" ;;
esac
`

const YAML = (testbed: string) => `name: cabling-run
testbed: ${testbed}
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

async function runOn(lab: TwoHostLab) {
  const d = mkdtempSync(join(tmpdir(), 'p4lab-cabling-run-'))
  const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
  try {
    for (const s of [lab.a.sshd, lab.b.sshd]) await p4labKnownHosts(d).trust(s.host, s.port, s.hostKey())
    const host = (name: string, s: TwoHostLab['a']['sshd']) => ({ name, address: s.host, port: s.port, user: s.user, auth: 'key' as const, keyFile: s.plainKey })
    await core.testbeds.create({ name: 'two', kind: 'bmv2', settings: { bringUp: 'netns', calibrate: false }, hosts: [host('hostA', lab.a.sshd), host('hostB', lab.b.sshd)] })
    const tb = await core.testbeds.setMapping('two', {
      yaml: `mapping:
  kind: bmv2
  hosts:
    - { host: hostA, switches: [leaf0, spine0], tunnelAddress: ${lab.a.underlay} }
    - { host: hostB, switches: [leaf1, spine1], tunnelAddress: ${lab.b.underlay} }
`,
    })
    expect(tb.mapping?.kind).toBe('bmv2')
    const exp = core.findOrCreateExperiment(YAML('two'), null)
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    const store = core.opts.store
    const row = store.getRun(runs[0].id)!
    const steps = store.listEvents(row.id).filter((e) => e.kind === 'step').map((e) => e.detail as { step: string; state: string })
    const logs = store.listLogs(row.id).map((l) => l.line)
    return { row, steps: steps.map((s) => `${s.step}:${s.state}`), logs, cabling: store.listEvents(row.id).filter((e) => e.kind === 'cabling') }
  } finally {
    core.opts.store.close()
    rmSync(d, { recursive: true, force: true })
  }
}

describe('a run on a miswired two-host testbed', () => {
  let lab: TwoHostLab
  beforeAll(async () => {
    lab = await startTwoHostLab('mis', { standIn: true, binA: { ip: CROSSING_IP } })
  }, 60_000)
  afterAll(async () => {
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  it('stops at its check step, naming the crossed cables; nothing is deployed and its teardown is clean', async () => {
    const r = await runOn(lab)
    expect(r.row.status).toBe('failed')
    expect(r.row.error).toMatch(/^cabling check: 2 of 6 links failed: /)
    expect(r.row.error).toContain('leaf0 port 0 reaches spine0 port 0, expected h0 eth0')
    expect(r.row.error).toContain('leaf0 port 1 reaches h0 eth0, expected spine0 port 0')
    expect(r.row.error).toContain('Nothing was deployed.')
    expect(r.steps).toEqual(['check:started', 'check:failed', 'teardown:started', 'teardown:done'])
    expect(r.cabling.some((e) => (e.detail as { ok?: boolean }).ok === false)).toBe(true)
  }, 180_000)
})
