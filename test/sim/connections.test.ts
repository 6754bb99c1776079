// Persistent connections (the HULA paper's traffic model): flows on one connection share its
// 5-tuple and congestion state and are sent one after another, and each flow's FCT runs from
// its arrival to the ACK of its last byte, so it includes its wait behind earlier flows.
import { describe, expect, test } from 'vitest'
import { buildFabric, customFromFabric } from '../../src-main/model/topology'
import { type ExplicitFlow, type SimResult } from '../../src-main/sim'
import { buildFlows } from '../../src-main/sim/workload'
import { HostLayout } from '../../src-main/sim/workload/layout'
import { runSim } from '../../src-main/schemes'
import { config, THREE_TIER, topo, webSearch } from './helpers'

const fct = (r: SimResult, i: number): number => r.flows.finishNs[i] - r.flows.startNs[i]

describe('flows on one persistent connection', () => {
  const big: ExplicitFlow = { src: 0, dst: 5, sizeBytes: 2e6, startNs: 0 }
  const small: ExplicitFlow = { src: 0, dst: 5, sizeBytes: 20_000, startNs: 10_000 }

  test('finish in arrival order, and a flow waits behind the earlier ones', () => {
    // Three flows; the list is not in arrival order, and results keep the list's order.
    const mid: ExplicitFlow = { src: 0, dst: 5, sizeBytes: 50_000, startNs: 5_000 }
    const r = runSim(config({ kind: 'explicit', flows: [small, big, mid].map((f) => ({ ...f, connection: 7 })) }))
    expect(Array.from(r.flows.startNs)).toEqual([small.startNs, big.startNs, mid.startNs])
    const [fs, fb, fm] = [r.flows.finishNs[0], r.flows.finishNs[1], r.flows.finishNs[2]]
    expect(fb).toBeGreaterThan(0)
    expect(fb).toBeLessThan(fm)
    expect(fm).toBeLessThan(fs)
    // The small flow's FCT includes its wait behind the 2 MB flow: at least 2 MB at 10G.
    expect(fct(r, 0)).toBeGreaterThanOrEqual(fb - small.startNs)
    expect(fct(r, 0)).toBeGreaterThan((2e6 * 8) / 10)
    expect(Array.from(r.flows.deliveredBytes)).toEqual([small.sizeBytes, big.sizeBytes, mid.sizeBytes])
    expect(r.counters.payloadBytesDelivered).toBe(small.sizeBytes + big.sizeBytes + mid.sizeBytes)
  })

  test('on connections of their own, the small flow does not wait (the control)', () => {
    const r = runSim(config({ kind: 'explicit', flows: [small, big] }))
    expect(r.flows.finishNs[0]).toBeLessThan(r.flows.finishNs[1])
    expect(fct(r, 0)).toBeLessThan((2e6 * 8) / 10 / 4)
  })

  test('keep the congestion window: a later flow skips slow start', () => {
    const first: ExplicitFlow = { src: 0, dst: 5, sizeBytes: 3e6, startNs: 0 }
    const later: ExplicitFlow = { src: 0, dst: 5, sizeBytes: 1e6, startNs: 20_000_000 }
    // 50 us links: a 400 us RTT, a bandwidth-delay product of about 340 packets at 10G.
    const far = { topology: topo({ linkDelayNs: 50_000 }) }
    const shared = runSim(config({ kind: 'explicit', flows: [first, later].map((f) => ({ ...f, connection: 1 })) }, far))
    const fresh = runSim(config({ kind: 'explicit', flows: [first, later] }, far))
    expect(shared.flows.finishNs[0]).toBeLessThan(later.startNs)
    // Fresh: slow start from 10 packets, several RTTs. Shared: the window left by the 3 MB flow.
    expect(fct(shared, 1)).toBeLessThan(0.95 * fct(fresh, 1))
  })

  test('refuse a connection label shared by different host pairs', () => {
    const flows = [{ ...big, connection: 1 }, { ...small, dst: 6, connection: 1 }]
    expect(() => runSim(config({ kind: 'explicit', flows }))).toThrow(/share connection 1 but not their source and destination/)
  })
})

describe('the client-server workload', () => {
  const fabric = buildFabric(THREE_TIER)
  const layout = new HostLayout(fabric, THREE_TIER.hostLinkBps)
  const w = { kind: 'poisson' as const, cdf: webSearch, load: 0.5, flows: 3000, destinations: 'other-pods' as const, connections: { perServer: 3 } }

  test('each client opens 3 connections to one server, with a fixed 5-tuple per connection', () => {
    const t = buildFlows(w, layout, 1460, 1)
    const msgs = t.msgs!
    expect(msgs.n).toBe(3000)
    // Every connection carried flows here (3000 flows over 96 connections).
    expect(t.n).toBe(32 * 3)
    for (let h = 0; h < 32; h++) {
      const servers = new Set<number>()
      const hashes = new Set<number>()
      for (let c = 0; c < t.n; c++) {
        if (t.src[c] !== h) continue
        servers.add(t.dst[c])
        hashes.add(t.dataHash[c])
      }
      expect(servers.size).toBe(1)
      expect(hashes.size).toBe(3)
      const server = [...servers][0]
      expect(fabric.nodes[fabric.torOfHost[server]].pod).not.toBe(fabric.nodes[fabric.torOfHost[h]].pod)
    }
    for (let m = 0; m < msgs.n; m++) {
      expect(msgs.src[m]).toBe(t.src[msgs.conn[m]])
      expect(msgs.dst[m]).toBe(t.dst[msgs.conn[m]])
    }
  })

  test('offers the load asked for: flows per second match load × link / mean size', () => {
    const t = buildFlows({ ...w, flows: 20_000 }, layout, 1460, 3)
    const last = Math.max(...t.msgs!.startPs) / 1e12
    const rate = 20_000 / last / 32
    const expected = (0.5 * 10e9) / 8 / 1_709_000
    expect(Math.abs(rate - expected) / expected).toBeLessThan(0.05)
  })

  test('a run finishes every flow, in FIFO order per connection', () => {
    const small = { ...w, flows: 200, load: 0.3 }
    const r = runSim(config(small, { topology: THREE_TIER, scheme: 'ecmp' }))
    const t = buildFlows(small, layout, 1460, 1)
    expect(Array.from(r.flows.finishNs).every((x) => x > 0)).toBe(true)
    const lastFinish = new Map<number, number>()
    const order = Array.from({ length: 200 }, (_, i) => i).sort((a, b) => r.flows.startNs[a] - r.flows.startNs[b] || a - b)
    for (const m of order) {
      const c = t.msgs!.conn[m]
      expect(r.flows.finishNs[m]).toBeGreaterThanOrEqual(lastFinish.get(c) ?? 0)
      lastFinish.set(c, r.flows.finishNs[m])
    }
  })

  // Clients per server, from the connection table (a server with no client does not appear).
  const fanIn = (t: ReturnType<typeof buildFlows>): Map<number, Set<number>> => {
    const m = new Map<number, Set<number>>()
    for (let c = 0; c < t.n; c++) m.set(t.dst[c], (m.get(t.dst[c]) ?? new Set()).add(t.src[c]))
    return m
  }

  test('choice random: clients draw on their own, so with this seed some server has several clients', () => {
    const t = buildFlows({ ...w, flows: 500 }, layout, 1460, 1)
    const counts = [...fanIn(t).values()].map((s) => s.size)
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(2)
    expect(counts.length).toBeLessThan(32)
  })

  test('choice permutation: every server has exactly one client, across pods, for several seeds', () => {
    for (const seed of [1, 2, 3, 4]) {
      const t = buildFlows({ ...w, flows: 3000, connections: { perServer: 3, choice: 'permutation' } }, layout, 1460, seed)
      const m = fanIn(t)
      expect(m.size).toBe(32)
      for (const [server, clients] of m) {
        expect(clients.size).toBe(1)
        const client = [...clients][0]
        expect(fabric.nodes[fabric.torOfHost[server]].pod).not.toBe(fabric.nodes[fabric.torOfHost[client]].pod)
      }
      // Still three connections per client, each its own 5-tuple.
      expect(t.n).toBe(96)
    }
    // The assignment is drawn from the seed: two seeds give two different ones.
    const pairs = (seed: number): string => {
      const t = buildFlows({ ...w, flows: 500, connections: { perServer: 3, choice: 'permutation' } }, layout, 1460, seed)
      return Array.from({ length: t.n }, (_, c) => `${t.src[c]}>${t.dst[c]}`).join(',')
    }
    expect(pairs(1)).toBe(pairs(1))
    expect(pairs(1)).not.toBe(pairs(2))
  })

  test('choice permutation with two servers per client: each server has exactly two clients', () => {
    const any = { ...w, flows: 500, destinations: 'other-racks' as const, connections: { perServer: 1, servers: 2, choice: 'permutation' as const } }
    const t = buildFlows(any, layout, 1460, 5)
    const m = fanIn(t)
    expect(m.size).toBe(32)
    for (const [server, clients] of m) {
      expect(clients.size).toBe(2)
      for (const c of clients) expect(fabric.torOfHost[c]).not.toBe(fabric.torOfHost[server])
    }
  })

  test('choice permutation refuses a fabric where no one-to-one assignment exists; random still runs', () => {
    // Racks of 3 and 1 hosts: the 3 hosts of the first rack can only send to the one host of the second.
    const written = customFromFabric(buildFabric(topo({ leaves: 2, spines: 1, hostsPerLeaf: 3 })), { hostLinkBps: 10e9, fabricLinkBps: 10e9, linkDelayNs: 1000 })
    const gone = new Set(['h4', 'h5'])
    const uneven = buildFabric({ ...written, nodes: written.nodes.filter((n) => !gone.has(n.name)), links: written.links.filter((l) => !gone.has(l.a) && !gone.has(l.b)).map(({ a, b }) => ({ a, b })) })
    const small = new HostLayout(uneven, 10e9)
    expect(small.rackHosts.map((r) => r.length)).toEqual([3, 1])
    const cs = { ...w, destinations: 'other-racks' as const, flows: 10 }
    expect(() => buildFlows({ ...cs, connections: { perServer: 1, choice: 'permutation' } }, small, 1460, 1)).toThrow(
      /workload.connections.choice is permutation, but no one-to-one assignment of clients to servers exists.*use choice: random/,
    )
    expect(buildFlows({ ...cs, connections: { perServer: 1 } }, small, 1460, 1).msgs!.n).toBe(10)
  })

  test('refuses more servers than a client has destinations', () => {
    const leaf = topo({ leaves: 2, hostsPerLeaf: 2 })
    expect(() => runSim(config({ ...w, destinations: 'other-racks', flows: 10, connections: { perServer: 1, servers: 3 } }, { topology: leaf }))).toThrow(
      /connections.servers is 3, but host 0 has only 2 possible servers/,
    )
  })
})
