import { probeEgress, type ProbeRule } from '../../model/controlplane/replication'
import { distancesTo, isUpPort, peer, type Fabric } from '../../model/topology'
import type { SchemeDescriptor } from '../../schemes/types'
import { formatRate } from '../../model/units'
import { isSchemeName, schemeOf, SCHEMES } from '../../schemes'
import type { FieldPath } from './locate'

// Checks on the fabric graph that need more than the builder sees: what the schemes the
// experiment runs need of it, and what the file states about it. Each problem names the node
// or link at fault, so the graph can mark it and `p4lab validate` print it.

export interface FabricProblem {
  path: FieldPath
  message: string
  /** Report at the key rather than its value (a key that names a link). */
  keyOf?: boolean
  /** The node or link of the fabric at fault. */
  node?: string
  link?: string
}

export interface GraphContext {
  /** The schemes the experiment runs (valid names only). */
  schemes: string[]
  /** Whether it runs on the simulator (else on a testbed, with the schemes' P4 programs). */
  sim: boolean
  /** topology.oversubscription of a custom topology (default 1). */
  oversubscription: number
  /** Where the file wrote each link of a custom topology (fabric link id → index in links:). */
  linkIndex?: Map<number, number>
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

function nodeProblem(f: Fabric, node: number, message: string): FabricProblem {
  const path = f.kind === 'custom' ? ['topology', 'nodes', node] : ['topology']
  return { path, message, node: f.nodes[node].name }
}

/** Every ToR must reach every other, and every switch must be reachable from a ToR. */
function connectivity(f: Fabric): FabricProblem[] {
  if (f.tors.length === 0) return [{ path: ['topology', 'nodes'], message: 'this fabric has no ToR (tier: tor); hosts hang off ToRs, and flows go between them' }]
  const dist = distancesTo(f, f.tors[0])
  const from = f.nodes[f.tors[0]].name
  return f.switches
    .filter((s) => dist[s] < 0)
    .map((s) => nodeProblem(f, s, `${f.nodes[s].name} is cut off from ${from}: no path of links joins them; every switch must reach every ToR`))
}

/**
 * Walks a probe from every ToR by the scheme's replication rule (the one the simulator and the
 * rendered multicast groups use), and reports each ToR whose probes miss another, saying which
 * tier the rule lacks where it can tell.
 */
function probeReach(f: Fabric, scheme: string, rule: ProbeRule): FabricProblem[] {
  const label = schemeOf(scheme).label
  const how = `${label}'s probes go up from each ToR, from an aggregation switch to its other ToRs and the spines, from a spine down to the other pods`
  const problems: FabricProblem[] = []
  const pods = new Set(f.tors.map((t) => f.nodes[t].pod))
  const spines = f.nodes.filter((n) => n.role === 'spine')
  for (const tor of f.tors) {
    const ups = f.nodes[tor].ports.map((_, p) => p).filter((p) => isUpPort(f, tor, p))
    if (ups.length === 0) {
      problems.push(nodeProblem(f, tor, `${f.nodes[tor].name} has no link up to an aggregation switch or spine; ${how}, so ${f.nodes[tor].name}'s probes go nowhere`))
      continue
    }
    // States (node, ingress port) already visited; a ToR reached from above consumes the probe.
    const seen = new Set<string>()
    const reached = new Set<number>([tor])
    const queue: Array<[number, number]> = ups.map((p) => [peer(f, tor, p).node, peer(f, tor, p).port])
    while (queue.length > 0) {
      const [node, port] = queue.pop()!
      const key = `${node}:${port}`
      if (seen.has(key)) continue
      seen.add(key)
      if (f.nodes[node].role === 'tor') reached.add(node)
      if (f.nodes[node].role !== 'tor') for (const q of probeEgress(f, node, port, rule).ports) queue.push([peer(f, node, q).node, peer(f, node, q).port])
    }
    const missed = f.tors.filter((t) => !reached.has(t))
    if (missed.length === 0) continue
    const other = f.nodes[missed[0]]
    if (pods.size >= 2 && spines.length === 0) {
      problems.push({ path: ['topology', 'nodes'], message: `the fabric has ${pods.size} pods but no spine tier; ${how}, so probes never leave their pod` })
      return problems
    }
    const mine = f.nodes[tor].pod
    if (mine >= 0 && other.pod === mine) {
      const aggs = (n: number) => new Set(f.nodes[n].ports.map((_, p) => peer(f, n, p).node).filter((m) => f.nodes[m].role === 'agg'))
      const theirs = aggs(other.id)
      if (![...aggs(tor)].some((a) => theirs.has(a))) {
        problems.push(
          nodeProblem(
            f,
            tor,
            `${f.nodes[tor].name} and ${other.name} are both in pod ${mine} but share no aggregation switch; ${how}, so a probe reaches a ToR of its own pod only through an aggregation switch both link to`,
          ),
        )
        continue
      }
    }
    const aggNoSpine = f.nodes.find((n) => n.role === 'agg' && pods.size >= 2 && !n.ports.some((_, p) => f.nodes[peer(f, n.id, p).node].role === 'spine'))
    if (aggNoSpine) {
      problems.push(nodeProblem(f, aggNoSpine.id, `${aggNoSpine.name} has no link up to a spine; ${how}, so the probes it carries never reach the other pods`))
      return problems
    }
    problems.push(
      nodeProblem(
        f,
        tor,
        `${f.nodes[tor].name}'s ${label} probes never reach ${other.name}${missed.length > 1 ? ` (nor ${plural(missed.length - 1, 'other ToR')})` : ''}: ${how}, and no such path joins them; check the tiers and pods of the switches between them`,
      ),
    )
  }
  return problems
}

function parallelLinkProblems(f: Fabric, schemes: string[], ctx: GraphContext): FabricProblem[] {
  const refusing = schemes.filter((s) => !schemeOf(s).parallelLinks)
  if (refusing.length === 0) return []
  const labels = refusing.map((s) => schemeOf(s).label).join(' and ')
  return f.links
    .filter((l) => l.name.includes('/'))
    .map((l) => {
      const first = l.name.slice(0, l.name.indexOf('/'))
      const at = ctx.linkIndex?.get(l.id)
      return {
        path: f.kind === 'custom' && at !== undefined ? ['topology', 'links', at] : f.kind === 'leaf-spine' ? ['topology', 'linksPerSpine'] : ['topology'],
        link: l.name,
        message: `${l.name} is a parallel link beside ${first}; ${labels} cannot use parallel links (its probes would come back down the second link to the ToR that sent them); remove it, or run ${refusing.length > 1 ? 'those schemes' : refusing[0]} on a fabric with one link per pair`,
      }
    })
}

/** A switch whose down bandwidth exceeds its up bandwidth by more than the topology states. */
function oversubscription(f: Fabric, allowed: number): FabricProblem[] {
  const problems: FabricProblem[] = []
  for (const s of f.switches) {
    let down = 0
    let up = 0
    let nDown = 0
    let nUp = 0
    for (let p = 0; p < f.nodes[s].ports.length; p++) {
      const l = f.links[f.nodes[s].ports[p]]
      if (isUpPort(f, s, p)) [up, nUp] = [up + l.bps, nUp + 1]
      else [down, nDown] = [down + l.bps, nDown + 1]
    }
    if (nUp === 0 || down <= up * allowed * (1 + 1e-9)) continue
    const ratio = down / up
    const name = f.nodes[s].name
    problems.push(
      nodeProblem(
        f,
        s,
        `${name} is ${+ratio.toFixed(2)}:1 oversubscribed: ${plural(nDown, 'link')} down carry ${formatRate(down)}, ${plural(nUp, 'link')} up ${formatRate(up)}; ` +
          `the topology states oversubscription ${allowed}${allowed === 1 ? ' (the default: non-blocking)' : ''}. Add or speed up ${name}'s uplinks, or state oversubscription: ${+ratio.toFixed(2)}`,
      ),
    )
  }
  return problems
}

/**
 * A scheme defined on other fabric kinds only, such as CONGA on a leaf-spine: on the simulator its
 * stage's kinds, on a testbed its P4 program's.
 */
function fabricKindProblems(f: Fabric, schemes: string[], sim: boolean): FabricProblem[] {
  const kindsOf = (d: SchemeDescriptor) => (sim ? d.simFabrics : d.controlPlane.fabrics)
  return schemes.flatMap((s) => {
    const kinds = kindsOf(schemeOf(s))
    if (!kinds || kinds.includes(f.kind)) return []
    const what = sim ? schemeOf(s).label : `${schemeOf(s).label}'s P4 program`
    const others = SCHEMES.filter((d) => d.name !== s && !kindsOf(d as SchemeDescriptor)).map((d) => d.name)
    return [{ path: ['schemes'], message: `${what} is defined on ${kinds.join(', ')} fabrics only, and this topology is ${f.kind}; on any fabric: ${others.join(', ')}` }]
  })
}

/** The graph checks of a built fabric against the experiment. */
export function graphProblems(f: Fabric, ctx: GraphContext): FabricProblem[] {
  const schemes = ctx.schemes.filter(isSchemeName)
  const problems = [...fabricKindProblems(f, schemes, ctx.sim), ...parallelLinkProblems(f, schemes, ctx)]
  // Generated fabrics are connected, probe-complete and as oversubscribed as their parameters say.
  if (f.kind !== 'custom') return problems
  const cut = connectivity(f)
  problems.push(...cut)
  if (cut.length > 0) return problems
  for (const s of schemes) {
    const rule = schemeOf(s).controlPlane.probes
    if (rule) problems.push(...probeReach(f, s, rule))
  }
  problems.push(...oversubscription(f, ctx.oversubscription))
  return problems
}
