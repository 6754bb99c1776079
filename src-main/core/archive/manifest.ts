// manifest.json: what the archive is, which p4lab and schema wrote it, the facts of the
// targets its runs ran on, and the sha256 and size of every other file in it.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { ArchiveRefusedError, badEntryPath } from './entries'

export const ARCHIVE_FORMAT = 'p4lab-archive'
export const ARCHIVE_FORMAT_VERSION = 1
export const MANIFEST = 'manifest.json'

const FactValue = z.union([z.string(), z.number(), z.boolean()])

export const Manifest = z
  .object({
    format: z.literal(ARCHIVE_FORMAT),
    formatVersion: z.literal(ARCHIVE_FORMAT_VERSION),
    p4labVersion: z.string(),
    /** PRAGMA user_version of data/p4lab.sqlite. */
    schemaVersion: z.number().int().positive(),
    createdAt: z.string(),
    experiment: z.object({
      name: z.string(),
      runs: z.number().int().nonnegative(),
      schemes: z.array(z.string()),
      loads: z.array(z.number()),
      seeds: z.array(z.number()),
      targets: z.array(z.string()),
    }),
    /** Where the archive was written: node, SQLite, OS. */
    tools: z.record(z.string(), z.string()),
    /** How many of the archived runs ended in each status (done, incomplete, failed, ...); archives before it have none. */
    statuses: z.record(z.string(), z.number().int().nonnegative()).optional(),
    /** Per target: the facts (tool versions, artifact, mapping) every run on it shares. */
    targets: z.record(z.string(), z.record(z.string(), FactValue)),
    files: z
      .array(
        z.object({
          path: z.string().refine((p) => badEntryPath(p) === null && p !== MANIFEST, { error: (i) => `bad file path ${JSON.stringify(i.input)}` }),
          sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
          bytes: z.number().int().nonnegative(),
        }),
      )
      .min(1),
    notes: z.array(z.string()),
  })
  .strict()
export type Manifest = z.infer<typeof Manifest>

/**
 * What an archive holds, as one hash: sha256 over its manifest's file list (each path with its
 * sha256, in path order). Packing, compression and the manifest's own text do not change it, so
 * an archive re-packed with `tar -C dir .` is the same archive.
 */
export function archiveContentHash(m: Pick<Manifest, 'files'>): string {
  const lines = [...m.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => `${f.sha256}  ${f.path}\n`)
  return createHash('sha256').update(lines.join('')).digest('hex')
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

/** Reads and checks manifest.json's shape; any problem is a refusal naming manifest.json. */
export function parseManifest(text: string): Manifest {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new ArchiveRefusedError(MANIFEST, `not valid JSON (${(err as Error).message})`)
  }
  const r = Manifest.safeParse(raw)
  if (!r.success) {
    const i = r.error.issues[0]
    throw new ArchiveRefusedError(MANIFEST, `malformed: ${i.path.join('.') || '(top level)'}: ${i.message}`)
  }
  const paths = new Set<string>()
  for (const f of r.data.files) {
    if (paths.has(f.path)) throw new ArchiveRefusedError(MANIFEST, `malformed: lists ${f.path} twice`)
    paths.add(f.path)
  }
  return r.data
}
