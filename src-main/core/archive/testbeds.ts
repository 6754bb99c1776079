// testbed/ of an archive: each testbed as its runs saw it when they started (runs.testbed),
// not as it is stored at export. Runs that saw different descriptions (the testbed was edited
// between them) get one file each, and the notes say which runs saw which and what differs
// from the testbed as stored now. Runs from before p4lab kept what a run saw fall back to
// the stored testbed, and the notes say so. Nothing secret or local is written (describeTestbed).
import type { SeenTestbed } from '../../contract/revisions'
import { REMOTE_KINDS, type RemoteKind, type TestbedKind } from '../../contract/testbeds'
import { canonicalJson } from '../p4build/key'
import { readSeenTestbed } from '../run-view'
import { describeTestbed, type RunRow, type Store } from '../store'

export function runList(ids: readonly number[]): string {
  return `${ids.length === 1 ? 'run' : 'runs'} ${ids.join(', ')}`
}

/** What differs between the testbed a run saw and the one stored now, as short phrases. */
export function testbedDifferences(then: SeenTestbed, now: SeenTestbed): string[] {
  const out: string[] = []
  const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null)
  if (then.kind !== now.kind) out.push(`kind ${then.kind} → ${now.kind}`)
  for (const k of [...new Set([...Object.keys(then.settings), ...Object.keys(now.settings)])].sort()) {
    if (!same(then.settings[k], now.settings[k])) out.push(`settings.${k}`)
  }
  const hostsNow = new Map(now.hosts.map((h) => [h.name, h]))
  const hostsThen = new Map(then.hosts.map((h) => [h.name, h]))
  for (const h of then.hosts) {
    const n = hostsNow.get(h.name)
    if (!n) out.push(`host ${h.name} removed`)
    else {
      const fields = (Object.keys(h) as Array<keyof typeof h>).filter((f) => !same(h[f], n[f]))
      if (fields.length > 0) out.push(`host ${h.name}: ${fields.join(', ')}`)
    }
  }
  for (const h of now.hosts) if (!hostsThen.has(h.name)) out.push(`host ${h.name} added`)
  if (!same(then.mapping, now.mapping)) out.push('mapping')
  return out
}

export interface ArchivedTestbeds {
  /** The run's testbed kind: what it saw, else the stored testbed's, else what its facts say it ran on (a testbed removed since), else the simulator. */
  kindOf: (run: RunRow) => TestbedKind
  /** The testbed the run recorded at start, well formed, else null. */
  seenBy: (run: RunRow) => SeenTestbed | null
}

/** Writes testbed/ for the runs and adds its notes; reads each run's record of its testbed once. */
export function archiveTestbeds(store: Store, runs: readonly RunRow[], put: (path: string, data: string) => void, notes: string[]): ArchivedTestbeds {
  const kinds = new Map<number, TestbedKind>()
  const seenBy = new Map<number, SeenTestbed>()
  for (const name of [...new Set(runs.map((r) => r.target))].sort()) {
    const mine = runs.filter((r) => r.target === name)
    const tb = store.getTestbed(name)
    const current = tb ? describeTestbed(tb) : null
    // A testbed removed or renamed since its runs: its kind is what the runs' facts say they ran
    // on, not the simulator's (which left their P4 sources and control plane out).
    const ranOn = mine.find((r) => REMOTE_KINDS.includes(r.facts?.target as RemoteKind))?.facts?.target as RemoteKind | undefined
    const storedKind: TestbedKind = tb?.kind ?? ranOn ?? 'sim'

    const seen: Array<{ seen: SeenTestbed; runs: number[] }> = []
    const unrecorded: number[] = []
    let neverStarted = 0
    for (const r of mine) {
      // Held, or cancelled while queued: it ran on nothing, so it saw no testbed and misses no record.
      if (r.startedAt === null) {
        kinds.set(r.id, storedKind)
        neverStarted++
        // This p4lab writes no record for it; one that came with an imported database may have
        // one: read as run-view reads it, so the archive and `p4lab show` agree.
        const { seen: s } = readSeenTestbed(store, r.id)
        if (s) seenBy.set(r.id, s)
        continue
      }
      const { seen: s, malformed } = readSeenTestbed(store, r.id)
      if (malformed) notes.push(`run ${r.id}'s record of the testbed it started on is malformed (it came with an imported archive?): it counts as a run that recorded none`)
      kinds.set(r.id, s?.kind ?? storedKind)
      if (!s) {
        unrecorded.push(r.id)
        continue
      }
      seenBy.set(r.id, s)
      const key = canonicalJson(s)
      const g = seen.find((x) => canonicalJson(x.seen) === key)
      if (g) g.runs.push(r.id)
      else seen.push({ seen: s, runs: [r.id] })
    }

    const one = seen.length + (unrecorded.length > 0 ? 1 : 0) === 1
    seen.forEach((g, i) => {
      const file = one ? `testbed/${name}.json` : `testbed/${name}/seen-${i + 1}.json`
      put(file, JSON.stringify({ ...g.seen, runs: g.runs }, null, 2) + '\n')
      const who = runList(g.runs)
      const they = g.runs.length === 1 ? 'it' : 'they'
      if (!current) notes.push(`testbed ${name} is no longer stored here (removed or renamed since): ${file} is the testbed as ${who} saw it when ${they} started`)
      else {
        const diff = testbedDifferences(g.seen, current)
        if (diff.length > 0) notes.push(`testbed ${name} was changed after ${who} started on it (${diff.join('; ')}): ${file} is the testbed as ${they} saw it, not as it is stored now`)
      }
    })
    if (unrecorded.length > 0) {
      // Runs that started before p4lab kept what a run saw: the testbed as it is stored now.
      const file = one ? `testbed/${name}.json` : `testbed/${name}/stored.json`
      const description = current ?? (ranOn ? { name, kind: storedKind, stored: false, note: "no longer stored here (removed or renamed since its runs): its kind is from the runs' facts, its hosts and settings are not known" } : { name, kind: 'sim' })
      put(file, JSON.stringify(one ? description : { ...description, runs: unrecorded }, null, 2) + '\n')
      if (ranOn && !tb) notes.push(`testbed ${name} (${storedKind}) is no longer stored: its hosts and settings are not in the archive`)
      else if (storedKind !== 'sim') {
        notes.push(`${runList(unrecorded)} on testbed ${name} started before p4lab kept the testbed each run saw: ${file} is the testbed as stored at export, which may differ from what ${unrecorded.length === 1 ? 'it' : 'they'} ran on`)
      }
    }
    if (seen.length === 0 && unrecorded.length === 0 && neverStarted > 0) {
      // Only runs that never started: the testbed they were queued on, as stored at export.
      put(`testbed/${name}.json`, JSON.stringify(current ?? { name, kind: storedKind, stored: false, note: 'no longer stored here (removed or renamed since its runs)' }, null, 2) + '\n')
    }
    if (seen.length + unrecorded.length > 0 && !one) {
      const parts = seen.map((g, i) => `${runList(g.runs)} saw testbed/${name}/seen-${i + 1}.json`)
      if (unrecorded.length > 0) parts.push(`${runList(unrecorded)} recorded none (testbed/${name}/stored.json is the testbed as stored at export)`)
      notes.push(`testbed ${name} was not the same for every run: ${parts.join('; ')}`)
    }
  }
  return { kindOf: (run) => kinds.get(run.id) ?? 'sim', seenBy: (run) => seenBy.get(run.id) ?? null }
}
