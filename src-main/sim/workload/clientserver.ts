// The HULA paper's traffic model (its §6): "each client chooses a server at random and
// initiates three persistent TCP connections to the server". Every host is a client; it
// picks `servers` distinct servers from its destination set and opens `perServer`
// connections to each. With `choice: random` each client draws on its own, so some servers
// get two or three clients (their downlink is then offered two or three times the load, a
// queue no load balancer can drain) and others none; with `choice: permutation` the
// clients are assigned one-to-one (serverassign.ts), so each server has `servers` clients. Each connection is an independent Poisson source of flows at
// load × hostLinkBps / 8 / meanFlowBytes / (servers × perServer) flows/s, so each client
// offers `load` of its link, as with one connection per flow. The streams are merged in
// time order until exactly `flows` flows exist; flows queue FIFO on their connection
// (tcp/messages.ts). The workload PRNG stream is the Poisson workload's, so schemes run
// with one seed see the very same flows and connections.

import { Rng } from '../engine/rng'
import type { ClientServerConnections, PoissonWorkload } from '../types'
import { cdfMean, checkCdf, sampleCdf } from './cdf'
import { DestinationPicker, type HostLayout } from './layout'
import { FlowList } from './list'
import { WORKLOAD_STREAM } from './poisson'
import { assignServers } from './serverassign'

export function clientServerFlows(
  workload: Omit<PoissonWorkload, 'kind'>,
  cs: ClientServerConnections,
  layout: HostLayout,
  seed: number,
  where = 'workload',
): { list: FlowList; connOf: Int32Array } {
  checkCdf(workload.cdf)
  if (!(workload.load > 0 && workload.load <= 1)) throw new Error(`${where}.load must be in (0, 1], got ${workload.load}`)
  if (!(Number.isInteger(workload.flows) && workload.flows >= 0)) {
    throw new Error(`${where}.flows must be a non-negative integer, got ${workload.flows}`)
  }
  const perServer = cs.perServer
  const servers = cs.servers ?? 1
  if (!(Number.isInteger(perServer) && perServer >= 1)) {
    throw new Error(`${where}.connections.perServer must be an integer >= 1, got ${perServer}`)
  }
  if (!(Number.isInteger(servers) && servers >= 1)) throw new Error(`${where}.connections.servers must be an integer >= 1, got ${servers}`)
  const hosts = layout.hosts
  const picker = new DestinationPicker(layout, workload.destinations)
  for (let h = 0; h < hosts; h++) {
    if (picker.count(h) < servers) {
      throw new Error(
        `${where}.connections.servers is ${servers}, but host ${h} has only ${picker.count(h)} possible servers (destinations: ${workload.destinations ?? 'other-racks'}); lower it`,
      )
    }
  }
  const choice = cs.choice ?? 'random'
  if (choice !== 'random' && choice !== 'permutation') {
    throw new Error(`${where}.connections.choice must be random or permutation, got ${String(choice)}`)
  }
  const rng = new Rng(seed, WORKLOAD_STREAM)
  const perClient = servers * perServer
  const conns = hosts * perClient
  const connSrc = new Int32Array(conns)
  const connDst = new Int32Array(conns)
  const serversOf = choice === 'permutation' ? assignServers(picker, hosts, servers, rng, where) : null
  for (let h = 0; h < hosts; h++) {
    const chosen: number[] = serversOf ? serversOf[h] : []
    while (chosen.length < servers) {
      const d = picker.pick(h, rng.nextInt(picker.count(h)))
      if (!chosen.includes(d)) chosen.push(d)
    }
    for (let k = 0; k < perClient; k++) {
      connSrc[h * perClient + k] = h
      connDst[h * perClient + k] = chosen[Math.floor(k / perServer)]
    }
  }
  const perConnRate = (workload.load * layout.hostLinkBps) / 8 / cdfMean(workload.cdf) / perClient
  const meanGapNs = 1e9 / perConnRate
  const gapNs = (): number => Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))
  const nextNs = new Float64Array(conns)
  for (let c = 0; c < conns; c++) nextNs[c] = gapNs()
  const list = new FlowList()
  const connOf = new Int32Array(workload.flows)
  for (let f = 0; f < workload.flows; f++) {
    let c = 0
    for (let k = 1; k < conns; k++) if (nextNs[k] < nextNs[c]) c = k
    list.add(connSrc[c], connDst[c], sampleCdf(workload.cdf, rng.nextFloat()), nextNs[c] * 1000)
    connOf[f] = c
    nextNs[c] += gapNs()
  }
  return { list, connOf }
}
