import { z } from 'zod'

// ---- The topology editor (issue 12): the fabric an experiment text builds, before any run, and
// where the editor's nodes sit (beside the experiment, never in its YAML). ----

/** What the editor and the Fabric tab mark on a link: its delay and loss, slow, failing at / recovering at. */
export const TopologyLinkMark = z.object({
  link: z.string(),
  delayNs: z.number(),
  /** Packet loss probability in [0, 1]; 0 when the topology sets none. */
  loss: z.number(),
  /** Slower than the topology's default rate for its kind of link. */
  slow: z.boolean(),
  /** When `failures:` takes the link down (ns of sim time), or null. */
  failAtNs: z.number().nullable(),
  /** When it comes back, or null (it stays down). */
  recoverAtNs: z.number().nullable(),
})
export type TopologyLinkMark = z.infer<typeof TopologyLinkMark>

/** A node position in the editor, in graph units. */
export const NodePosition = z.object({ x: z.number().finite(), y: z.number().finite() })
export type NodePosition = z.infer<typeof NodePosition>

export const TopologyLayout = z.object({
  positions: z.record(z.string().max(200), NodePosition),
  /** null: never saved (the editor lays the fabric out by tier). */
  updatedAt: z.string().nullable(),
})
export type TopologyLayout = z.infer<typeof TopologyLayout>
