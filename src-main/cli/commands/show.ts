import { parseArgs } from 'node:util'
import { COMPLETE_SHARE, completionNumbers } from '../../contract'
import { toRun } from '../../core/services'
import { eventText, formatCounter, formatNsShort } from '../../plots/format'
import { fail, openCore, COMMON_OPTIONS, runsTable, UsageError, type Command } from '../common'

/** One line per event: the wall clock, the simulated time when it has one, the kind and what happened. */
function eventLines(events: Array<{ at: string; tNs: number | null; kind: string; detail: unknown }>): string[] {
  const clock = (iso: string) => (/T(\d\d:\d\d:\d\d\.\d+)/.exec(iso)?.[1] ?? iso)
  const sim = events.map((e) => (e.tNs === null ? '' : `t=${formatNsShort(e.tNs)}`))
  const simW = Math.max(0, ...sim.map((s) => s.length))
  const kindW = Math.max(0, ...events.map((e) => e.kind.length))
  return events.map((e, i) => `  ${clock(e.at)}  ${simW ? `${sim[i].padEnd(simW)}  ` : ''}${e.kind.padEnd(kindW)}  ${eventText(e.kind, e.detail)}`.trimEnd())
}

function cmdShow(idText: string, db: string | undefined, json: boolean): number {
  const id = Number(idText)
  if (!Number.isInteger(id) || id <= 0) throw new UsageError(`RUN must be a run id (a positive integer), got '${idText}'`)
  const core = openCore(db)
  const store = core.opts.store
  const row = store.getRun(id)
  if (!row) fail(`run ${id} does not exist in ${store.file}`, 1)
  const events = store.listEvents(id)
  const series = store.listSeries(id)
  if (json) {
    process.stdout.write(JSON.stringify({ ...toRun(row), facts: row.facts, events, series: series.length }, null, 2) + '\n')
  } else {
    const lines = [
      `run ${row.id}: ${row.experimentName}, ${row.scheme}, load ${row.load}, seed ${row.seed} on ${row.target}`,
      `status    ${row.status}${row.error ? `: ${row.error}` : ''}`,
      ...(row.completion ? [`flows     ${completionNumbers(row.completion)}${row.completion.complete ? '' : `; done needs ${COMPLETE_SHARE * 100} %`}`] : []),
      `created   ${row.createdAt}`,
      `started   ${row.startedAt ?? '-'}`,
      `finished  ${row.finishedAt ?? '-'}`,
      '',
      runsTable([toRun(row)], { notes: false }),
      '',
      'counters',
      ...Object.entries(row.counters ?? {}).map(([k, v]) => `  ${k.padEnd(24)} ${formatCounter(k, v).padStart(12)}`),
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

export const showCommand: Command = {
  name: 'show',
  usage: ['show RUN [--db PATH] [--json]', '    show one run: status, FCT statistics, counters in their units, events one per line (--json: raw numbers)'],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    if (positionals.length !== 1) throw new UsageError('show takes one run id')
    return cmdShow(positionals[0], values.db, values.json)
  },
}
