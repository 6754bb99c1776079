// A random one-to-one assignment of clients to servers (the client-server workload's
// `choice: permutation`): every host is a client and a server, each client gets `servers`
// distinct servers from its destination set, and each server gets exactly `servers`
// clients, so every server's downlink is offered the same load as its uplink.
//
// Each round is a perfect matching in the bipartite graph of allowed (client, server)
// pairs, minus the pairs of earlier rounds. Kuhn's augmenting paths, over clients and
// candidate servers in random order, find one whenever one exists; random swaps between
// two clients (kept only where both stay allowed) then mix it, so the assignment does not
// lean toward the order the search tried.

import type { Rng } from '../engine/rng'
import type { DestinationPicker } from './layout'

const SWAPS_PER_HOST = 20

export function assignServers(picker: DestinationPicker, hosts: number, servers: number, rng: Rng, where: string): number[][] {
  const chosen: number[][] = Array.from({ length: hosts }, () => [])
  const allowedSets: Array<Set<number>> = []
  for (let h = 0; h < hosts; h++) {
    const set = new Set<number>()
    for (let r = 0; r < picker.count(h); r++) set.add(picker.pick(h, r))
    allowedSets.push(set)
  }
  const allowed = (c: number, s: number): boolean => allowedSets[c].has(s) && !chosen[c].includes(s)
  for (let round = 0; round < servers; round++) {
    const serverOf = new Int32Array(hosts).fill(-1)
    const clientOf = new Int32Array(hosts).fill(-1)
    const candidates = (c: number): number[] => shuffle([...allowedSets[c]].filter((s) => !chosen[c].includes(s)), rng)
    const cand = Array.from({ length: hosts }, (_, c) => candidates(c))
    for (const c of shuffle(Array.from({ length: hosts }, (_, i) => i), rng)) {
      if (!augment(c, cand, serverOf, clientOf, new Uint8Array(hosts))) {
        throw new Error(
          `${where}.connections.choice is permutation, but no one-to-one assignment of clients to servers exists (round ${round + 1} of servers: ${servers}): some group of hosts is larger than the servers outside it; use choice: random, fewer servers, or other destinations`,
        )
      }
    }
    for (let k = 0; k < SWAPS_PER_HOST * hosts; k++) {
      const a = rng.nextInt(hosts)
      const b = rng.nextInt(hosts)
      if (a === b) continue
      const sa = serverOf[a]
      const sb = serverOf[b]
      if (allowed(a, sb) && allowed(b, sa)) {
        serverOf[a] = sb
        serverOf[b] = sa
      }
    }
    for (let c = 0; c < hosts; c++) chosen[c].push(serverOf[c])
  }
  return chosen
}

/** Kuhn's step: find a server for client c, moving matched clients along an augmenting path. */
function augment(c: number, cand: number[][], serverOf: Int32Array, clientOf: Int32Array, seen: Uint8Array): boolean {
  for (const s of cand[c]) {
    if (seen[s]) continue
    seen[s] = 1
    if (clientOf[s] < 0 || augment(clientOf[s], cand, serverOf, clientOf, seen)) {
      serverOf[c] = s
      clientOf[s] = c
      return true
    }
  }
  return false
}

function shuffle<T>(xs: T[], rng: Rng): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.nextInt(i + 1)
    const t = xs[i]
    xs[i] = xs[j]
    xs[j] = t
  }
  return xs
}
