import { z } from 'zod'

// ---- Pipelines (issue 4): the P4 programs, their builds and the generated control planes. ----

export const P4Target = z.enum(['bmv2', 'tofino'])
export type P4Target = z.infer<typeof P4Target>
/** A program's name: its folder p4/<program>/ and its files <arch>/<program>.p4 (the scheme it implements). */
export const ProgramName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'expected a program name such as hula')

/** A compiler message: file:line:column: severity: message (src-main/core/p4/diagnostics.ts). */
export const P4Diagnostic = z.object({
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  severity: z.enum(['error', 'warning']),
  kind: z.string(),
  message: z.string(),
  detail: z.string(),
})
export type P4Diagnostic = z.infer<typeof P4Diagnostic>

/** The sections of a diagnostic's detail (p4c's "---- Actual error:", "---- Originating from:"), each with its lines. */
export function detailSections(detail: string): Array<{ heading: string; lines: string[] }> {
  const out: Array<{ heading: string; lines: string[] }> = []
  for (const line of detail.split('\n')) {
    const h = /^----\s+(.*?):?\s*$/.exec(line)
    if (h) out.push({ heading: h[1], lines: [] })
    else if (line !== '' && out.length > 0) out[out.length - 1].lines.push(line)
  }
  return out
}

/** What is wrong, when p4c's message only names the expression at fault ('x') and says it in "Actual error". */
export function actualError(d: Pick<P4Diagnostic, 'detail'>): string | null {
  return detailSections(d.detail).find((s) => /^actual error$/i.test(s.heading))?.lines[0]?.trim() || null
}

/** A shipped program and what it declares for its control plane. */
export const PipelineProgram = z.object({
  scheme: z.string(),
  target: P4Target,
  arch: z.string(),
  /** p4/<program>/<arch>/<program>.p4 (`scheme` is the program name) */
  path: z.string(),
  tables: z.array(z.object({ name: z.string(), keys: z.array(z.string()), actions: z.array(z.string()), size: z.number().int().nullable() })),
  registers: z.array(z.object({ name: z.string(), bits: z.number().int(), size: z.number().int() })),
  counters: z.array(z.object({ name: z.string(), size: z.number().int() })),
  usesMulticast: z.boolean(),
  /** Why the declarations could not be read, or null. */
  error: z.string().nullable(),
})
export type PipelineProgram = z.infer<typeof PipelineProgram>

export const PipelineVariant = z.object({
  experimentId: z.number().int(),
  scheme: z.string(),
  target: P4Target,
  main: z.string(),
  /** sha256 of the shipped main file it was copied from. */
  copiedFrom: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type PipelineVariant = z.infer<typeof PipelineVariant>

/** A program's text: the main file first, then the project files it includes. */
export const PipelineSource = z.object({
  scheme: z.string(),
  target: P4Target,
  /** How builds of it are named in the artifacts list. */
  program: z.string(),
  /** The main file, relative to the program root (e.g. hula/v1model/hula.p4). */
  main: z.string(),
  files: z.array(z.object({ path: z.string(), text: z.string() })),
  /** Set when this is an experiment's editable copy. */
  variant: PipelineVariant.nullable(),
})
export type PipelineSource = z.infer<typeof PipelineSource>

export const PipelineRender = z.object({
  scheme: z.string(),
  target: P4Target,
  program: z.string(),
  /** e.g. "three-tier: 2 pods × 2 ToRs, 2 aggs per pod, 2 spines". */
  topology: z.string(),
  switches: z.array(
    z.object({
      name: z.string(),
      role: z.string(),
      switchId: z.number().int(),
      /** <switch>.cli or <switch>.py */
      fileName: z.string(),
      /** With comments, for people. */
      text: z.string(),
      /** What goes to the switch (BMv2: command lines only). */
      deployText: z.string(),
    }),
  ),
  /** BMv2's link-rate mapping (set_queue_rate), null on Tofino. */
  queues: z
    .object({
      ceilingBps: z.number(),
      packetBytes: z.number(),
      scale: z.number(),
      ports: z.array(
        z.object({ switch: z.string(), port: z.number().int(), bps: z.number(), scaledBps: z.number(), pps: z.number(), depthPackets: z.number() }),
      ),
    })
    .nullable(),
})
export type PipelineRender = z.infer<typeof PipelineRender>

/** A stored build (the artifacts table). */
export const PipelineArtifact = z.object({
  id: z.number().int(),
  key: z.string(),
  target: z.string(),
  program: z.string(),
  compiler: z.string(),
  options: z.record(z.string(), z.unknown()),
  status: z.enum(['ok', 'failed']),
  exitCode: z.number().int().nullable(),
  /** Output name → path relative to <userData>/artifacts/<key>/. */
  files: z.record(z.string(), z.string()),
  diagnostics: z.array(P4Diagnostic),
  log: z.string(),
  main: z.string(),
  where: z.string(),
  durationMs: z.number(),
  createdAt: z.string(),
})
export type PipelineArtifact = z.infer<typeof PipelineArtifact>
