import { parseArgs } from 'node:util'
import { COMPLETE_SHARE, completionNumbers, unfinishedText } from '../../contract'
import type { RunRanWith } from '../../contract'
import { ranWith } from '../../core/run-view'
import { toRun } from '../../core/services'
import { eventText, formatCounter, formatNsShort } from '../../plots/format'
import { formatSlowdown } from '../../plots/format'
import { fail, openExistingCore, COMMON_OPTIONS, runsTable, UsageError, type Command } from '../common'

/** One line per event: the wall clock, the simulated time when it has one, the kind and what happened. */
function eventLines(events: Array<{ at: string; tNs: number | null; kind: string; detail: unknown }>): string[] {
  const clock = (iso: string) => (/T(\d\d:\d\d:\d\d\.\d+)/.exec(iso)?.[1] ?? iso)
  const sim = events.map((e) => (e.tNs === null ? '' : `t=${formatNsShort(e.tNs)}`))
  const simW = Math.max(0, ...sim.map((s) => s.length))
  const kindW = Math.max(0, ...events.map((e) => e.kind.length))
  return events.map((e, i) => `  ${clock(e.at)}  ${simW ? `${sim[i].padEnd(simW)}  ` : ''}${e.kind.padEnd(kindW)}  ${eventText(e.kind, e.detail)}`.trimEnd())
}

function cmdShow(idText: string, db: string | undefined, json: boolean): number {
  // Digits only: '0x10' or '1e0' read by Number would show another run than the one typed.
  const id = /^\d+$/.test(idText) ? Number(idText) : NaN
  if (!Number.isSafeInteger(id) || id <= 0) throw new UsageError(`RUN must be a run id (a positive integer), got '${idText}'`)
  const core = openExistingCore(db, { forReading: true })
  const store = core.opts.store
  const row = store.getRun(id)
  if (!row) fail(`run ${id} does not exist in ${store.file}`, 1)
  const events = store.listEvents(id)
  const series = store.listSeries(id)
  const ran = ranWith(store, row)
  if (json) {
    process.stdout.write(JSON.stringify({ ...toRun(row), facts: row.facts, ranWith: ran, events, series: series.length }, null, 2) + '\n')
  } else {
    const lines = [
      `run ${row.id}: ${row.experimentName}, ${row.scheme}, load ${row.load}, seed ${row.seed} on ${row.target}`,
      `status    ${row.status}${row.error ? `: ${row.error}` : ''}`,
      ...setAsideLines(row, store.getExperiment(row.experimentId)),
      ...(row.tags.length > 0 ? [`tags      ${row.tags.join(', ')}`] : []),
      ...(row.notes ? [`notes     ${row.notes.split('\n').join('\n          ')}`] : []),
      ...(row.completion
        ? [
            `flows     ${completionNumbers(row.completion)}${row.completion.complete ? '' : `; done needs ${COMPLETE_SHARE * 100} %`}`,
            // Every flow finished: nothing was left out, so nothing to say about it.
            ...(row.completion.unfinished > 0 ? [`          ${unfinishedText(row.completion)}, left out of the FCT statistics`] : []),
          ]
        : []),
      `created   ${row.createdAt}`,
      `started   ${row.startedAt ?? '-'}`,
      `finished  ${row.finishedAt ?? '-'}`,
      ...ranWithLines(ran),
      '',
      runsTable([toRun(row)], { notes: false }),
      ...(row.stats ? [slowdownLine(row.stats.slowdown)] : []),
      '',
      ...(row.counters && Object.keys(row.counters).length > 0
        ? ['counters', ...Object.entries(row.counters).map(([k, v]) => `  ${k.padEnd(24)} ${formatCounter(k, v).padStart(12)}`)]
        : ['counters  none stored']),
      '',
      `series    ${series.length}`,
      'events',
      ...eventLines(events),
    ]
    process.stdout.write(lines.join('\n') + '\n')
  }
  store.close()
  return 0
}

/**
 * Whether the run is hidden from lists, compare and the matrix, and how to bring it back: set
 * aside itself, or with its experiment (which hides its runs without marking them).
 */
function setAsideLines(run: { id: number; archivedAt: string | null; deletedAt: string | null }, exp: { id: number; archivedAt: string | null; deletedAt: string | null } | undefined): string[] {
  const where = (r: { deletedAt: string | null }) => (r.deletedAt ? 'in the trash' : 'archived')
  return [
    ...(run.deletedAt || run.archivedAt ? [`set aside ${where(run)}: p4lab restore run ${run.id} brings it back`] : []),
    ...(exp && (exp.deletedAt || exp.archivedAt) ? [`set aside ${where(exp)} with experiment ${exp.id}: p4lab restore experiment ${exp.id} brings it back`] : []),
  ]
}

/** FCT slowdown beside the FCT table: n/a for a run stored before it was measured. */
function slowdownLine(s: { mean: number; p50: number; p95: number; p99: number } | null | undefined): string {
  if (!s) return `slowdown  n/a (${s === null ? 'no flow has an ideal FCT on this fabric' : 'stored before FCT slowdown was measured'})`
  return `slowdown  mean ${formatSlowdown(s.mean)}  p50 ${formatSlowdown(s.p50)}  p95 ${formatSlowdown(s.p95)}  p99 ${formatSlowdown(s.p99)}  (FCT / ideal FCT on an idle fabric)`
}

/** A spec value by the unit its key names, as counters are: hostLinkBps 10.0 Gb/s, linkDelayNs 1.00 µs. */
function specValue(key: string, v: unknown): string {
  return typeof v === 'number' ? formatCounter(key, v) : typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/** Scalars of a spec block as `key value` pairs (a workload's CDF points and the like are left out). */
function scalars(v: unknown): string {
  if (v === null || typeof v !== 'object') return String(v)
  const parts: string[] = []
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === null || typeof x !== 'object') parts.push(`${k} ${specValue(k, x)}`)
    else if (Array.isArray(x) && x.length <= 8 && x.every((e) => e === null || typeof e !== 'object')) parts.push(`${k} [${x.join(', ')}]`)
  }
  return parts.join(', ')
}

/** What the run ran with, from its own record: it reads the same after the experiment is edited. */
function ranWithLines(r: RunRanWith): string[] {
  if (r.revision === null) return ['ran with  (no record of what this run ran with)']
  const notes = [...(r.reconstructed ? ['reconstructed by a database upgrade from the spec it pointed at'] : []), ...(r.stale ? ['stale: the experiment has changed since'] : [])]
  return [
    `ran with  revision ${r.revision}${r.name ? ` of ${r.name}` : ''}${notes.length ? ` (${notes.join('; ')})` : ''}`,
    `  topology  ${scalars(r.topology)}`,
    `  workload  ${scalars(r.workload)}`,
    `  params    ${Object.entries(r.params).map(([k, v]) => `${k} ${specValue(k, v)}`).join(', ') || '-'}`,
    ...(r.testbed ? testbedLines(r.testbed) : []),
  ]
}

/** The testbed as the run found it at start, which an edit of the testbed since does not change. */
function testbedLines(t: NonNullable<RunRanWith['testbed']>): string[] {
  const settings = Object.entries(t.settings)
    .filter(([, v]) => v === null || typeof v !== 'object')
    .map(([k, v]) => `${k} ${v}`)
  return [
    `  testbed   ${t.name} (${t.kind}) as the run found it${settings.length ? `: ${settings.join(', ')}` : ''}`,
    ...t.hosts.map((h) => `    ${h.name}  ${h.user}@${h.address}:${h.port} (${h.role}, ${h.auth}${h.hostKey ? ', host key pinned' : ''})`),
  ]
}

export const showCommand: Command = {
  name: 'show',
  usage: ['show RUN [--db PATH] [--json]', '    show one run: status (and whether it is archived or in the trash), tags, notes, FCT statistics, counters in their units, events one per line (--json: raw numbers)'],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    if (positionals.length !== 1) throw new UsageError('show takes one run id')
    return cmdShow(positionals[0], values.db, values.json)
  },
}
