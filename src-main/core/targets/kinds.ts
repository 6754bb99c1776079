// The remote target kinds, each said in its own folder (targets/<kind>/kind.ts; kind.ts says
// what a kind gives). A kind added to the contract's TestbedKind is a type error here until
// its folder exists.
import type { RemoteKind } from '../../contract/schemas'
import type { TestbedMapping } from '../../contract/testbed-mapping'
import { BMV2 } from './bmv2/kind'
import type { RemoteKindSpec } from './kind'
import { TOFINO } from './tofino/kind'

export const KINDS: { readonly [K in RemoteKind]: RemoteKindSpec<K> } = { bmv2: BMV2, tofino: TOFINO }

/** The kind a mapping is of, typed to take that mapping. */
export function kindOfMapping<M extends TestbedMapping>(m: M): RemoteKindSpec<M['kind']> {
  return KINDS[m.kind] as unknown as RemoteKindSpec<M['kind']>
}

export function isRemoteKind(kind: string): kind is RemoteKind {
  return Object.hasOwn(KINDS, kind)
}

/** Why a run needs the tool named, and where it comes from, when a kind's check knows it. */
export function describeTool(name: string): { why: string; install: string } | undefined {
  for (const k of Object.values(KINDS)) {
    const t = k.tools.find((x) => x.name === name)
    if (t) return { why: t.why, install: t.install }
  }
  return undefined
}
