import { z } from 'zod'

// ---- Managing runs and experiments: tags, notes, archive and trash, search (issue 14). ----

/** One tag: a word without spaces or quotes, so `tag:NAME` in a query names it as written. */
export const Tag = z
  .string()
  .trim()
  .min(1, 'a tag cannot be empty')
  .max(64, 'a tag is at most 64 characters')
  .regex(/^[^\s'"]+$/, "a tag is one word: no spaces or quotes (use '-' or '_')")
export const Tags = z.array(Tag).max(100)

export const Notes = z.string().max(100_000)

/** Set aside: archived (kept out of the lists) or deleted (in the trash until it is emptied); both restorable. */
export const SetAsideHow = z.enum(['archived', 'deleted'])
export type SetAsideHow = z.infer<typeof SetAsideHow>

/** Which rows a listing shows: the active ones (default), the archived, the trash, or all. */
export const Shown = z.enum(['active', 'archived', 'deleted', 'all'])
export type Shown = z.infer<typeof Shown>

export const IdList = z.array(z.number().int().positive()).min(1).max(10_000)

/** Runs across every experiment that match a query of the `--where` language, grouped by experiment. */
export const SearchResult = z.object({
  query: z.string(),
  /** The experiments with a matching run, newest first, each with the runs that match. */
  experiments: z.array(z.object({ id: z.number().int(), name: z.string(), tags: z.array(z.string()), runIds: z.array(z.number().int()) })),
  /** How many runs matched, in all. */
  runs: z.number().int(),
  /** When nothing matches: for each term no run satisfies, what the runs do have (as the CLI's --where prints). */
  hints: z.array(z.string()),
})
export type SearchResult = z.infer<typeof SearchResult>

/** What to do with an archive whose content is already in the store: leave it (default), or import a copy. */
export const OnDuplicate = z.enum(['skip', 'copy'])
export type OnDuplicate = z.infer<typeof OnDuplicate>
