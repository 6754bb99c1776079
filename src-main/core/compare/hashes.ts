// Stable hashes that say whether two runs ran the same thing: sha256 over canonical JSON
// (keys sorted at every level, no whitespace), as the artifact key does.
//
// - topology: the experiment's normalised topology (links removed/slowed by canonical name);
// - config: the whole normalised spec except what is not the experiment itself: the testbed
//   (a run's target is its own column) and the workload CDF's path on this machine (its
//   points are in, so a changed CDF still changes the hash);
// - program: the artifact key the target built (BMv2/Tofino: sources + compiler + options), or
//   for the sim, its engine name: the sim runs no P4, its pipeline is the simulator's.
import { createHash } from 'node:crypto'
import { canonicalJson } from '../p4build/key'

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** The first 12 hex digits: enough to tell runs apart in a table. */
export function shortHash(h: string): string {
  return h.slice(0, 12)
}

function spec(specJson: unknown): Record<string, unknown> {
  return typeof specJson === 'object' && specJson !== null ? (specJson as Record<string, unknown>) : {}
}

export function topologyHash(specJson: unknown): string {
  return sha256Hex(canonicalJson(spec(specJson).topology ?? null))
}

export function configHash(specJson: unknown): string {
  const s = { ...spec(specJson) }
  delete s.testbed
  if (typeof s.workload === 'object' && s.workload !== null) {
    const w = { ...(s.workload as Record<string, unknown>) }
    delete w.file
    s.workload = w
  }
  return sha256Hex(canonicalJson(s))
}

export function programHash(target: string, facts: Record<string, unknown> | null, scheme: string): string {
  if (facts && typeof facts.artifact === 'string') return facts.artifact
  const engine = facts && typeof facts.engine === 'string' ? facts.engine : target
  return sha256Hex(canonicalJson({ pipeline: engine, scheme }))
}
