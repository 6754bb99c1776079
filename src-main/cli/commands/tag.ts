// `p4lab tag` and `p4lab note`: the store's own tags and notes of runs and experiments. An
// experiment's YAML `tags:` are its text's: they show with the others, and change by editing it.
import { parseArgs } from 'node:util'
import { Tag } from '../../contract'
import { ManageError, type Store } from '../../core/store'
import { fail, openExistingCore, printableInput, COMMON_OPTIONS, UsageError, type Command } from '../common'
import { targets } from './manage'

function withStore(db: string | undefined, fn: (store: Store) => number): number {
  const core = openExistingCore(db)
  try {
    return fn(core.opts.store)
  } catch (err) {
    if (err instanceof ManageError) fail(err.message, 1)
    throw err
  } finally {
    core.opts.store.close()
  }
}

function checkTag(t: string): string {
  const r = Tag.safeParse(printableInput('a tag', t))
  if (!r.success) throw new UsageError(`tag '${t}': ${r.error.issues[0].message}`)
  return r.data
}

export const tagCommand: Command = {
  name: 'tag',
  usage: [
    'tag run ID TAG... | tag experiment NAME|ID TAG... [--remove TAG]... [--db PATH] [--json]',
    "    add tags to a run or an experiment (--remove takes them off; no tags: show them); find them with --where 'tag:TAG'",
  ],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON_OPTIONS, remove: { type: 'string', multiple: true } } })
    const add = positionals.slice(2).map(checkTag)
    const remove = (values.remove ?? []).map(checkTag)
    return withStore(values.db, (store) => {
      const t = targets(store, 'tag', positionals.slice(0, 2))
      const id = t.ids[0]
      let fileTags: string[] = []
      let own: string[]
      if (t.kind === 'runs') own = store.getRun(id)!.tags
      else {
        const e = store.getExperiment(id)!
        fileTags = e.tags
        own = e.storeTags
        const fixed = remove.filter((x) => fileTags.includes(x))
        if (fixed.length > 0) fail(`tag ${fixed.join(', ')} of experiment ${id} comes from its YAML (tags:); edit the text to remove it`, 1)
      }
      // Taking off a tag that is not there changes nothing: said, so a typo is not taken for done.
      const absent = remove.filter((x) => !own.includes(x))
      if (absent.length > 0) process.stderr.write(`p4lab: ${t.kind === 'runs' ? 'run' : 'experiment'} ${id} has no tag ${absent.map((x) => `'${x}'`).join(', ')}: nothing to remove\n`)
      if (add.length > 0 || remove.length > 0) {
        own = [...own, ...add].filter((x) => !remove.includes(x))
        if (t.kind === 'runs') store.setRunTags(id, own)
        else store.setExperimentTags(id, own)
        own = t.kind === 'runs' ? store.getRun(id)!.tags : store.getExperiment(id)!.storeTags
      }
      const all = [...new Set([...fileTags, ...own])]
      if (values.json) process.stdout.write(JSON.stringify({ kind: t.kind, id, tags: all, storeTags: own, yamlTags: fileTags }, null, 2) + '\n')
      else process.stdout.write(`${t.kind === 'runs' ? 'run' : 'experiment'} ${id}: ${all.length ? all.map((x) => (fileTags.includes(x) ? `${x} (YAML)` : x)).join(', ') : 'no tags'}\n`)
      return 0
    })
  },
}

export const noteCommand: Command = {
  name: 'note',
  usage: ['note run ID [TEXT] | note experiment NAME|ID [TEXT] [--db PATH] [--json]', "    set the notes of a run or an experiment (TEXT '' clears them; no TEXT: print them)"],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    if (positionals.length > 3) throw new UsageError("note takes one TEXT: quote it ('like this')")
    const text = positionals.length === 3 ? printableInput('TEXT', positionals[2], { multiLine: true }) : undefined
    return withStore(values.db, (store) => {
      const t = targets(store, 'note', positionals.slice(0, 2))
      const id = t.ids[0]
      if (text !== undefined) store.setNotes(t.kind, id, text)
      const notes = t.kind === 'runs' ? store.getRun(id)!.notes : store.getExperiment(id)!.notes
      if (values.json) process.stdout.write(JSON.stringify({ kind: t.kind, id, notes }, null, 2) + '\n')
      else process.stdout.write(notes === '' ? `${t.kind === 'runs' ? 'run' : 'experiment'} ${id} has no notes\n` : `${notes}\n`)
      return 0
    })
  },
}
