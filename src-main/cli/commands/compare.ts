import { parseArgs } from 'node:util'
import { CompareError, QueryError, compareRuns, formatCompareCdfs, formatCompareJson, formatCompareTable, isMetric, loadRecords, METRICS, parseQuery, unmatchedHints } from '../../core/compare'
import type { Store } from '../../core/store'
import { fail, openExistingCore, problem, COMMON_OPTIONS, UsageError, type Command } from '../common'

/** An experiment named on the command line: its id, or its name (names are unique). */
export function resolveExperiment(store: Store, text: string): number {
  if (/^\d+$/.test(text)) {
    const id = Number(text)
    if (Number.isSafeInteger(id) && store.getExperiment(id)) return id
    fail(`experiment ${text} does not exist in ${store.file}`, 1)
  }
  const found = store.findExperimentByName(text)
  if (found) return found.id
  // A name it had before a rename: say what it is called now rather than that it is not there.
  const renamed = store.experimentsRenamedFrom(text)
  if (renamed.length > 0) {
    const now = renamed.map((e) => `'${e.name}' (experiment ${e.id})`).join(', ')
    fail(`no experiment named '${text}' in ${store.file}: it was renamed to ${now}; give that name or the id`, 1)
  }
  fail(`no experiment named '${text}' in ${store.file} (give a name or an id; 'p4lab list' shows them)`, 1)
}

function cmdCompare(names: string[], v: { db?: string; json: boolean; metric?: string; by?: string; baseline?: string; band?: string; where?: string; cdf?: string }): number {
  const metric = v.metric ?? 'mean'
  if (!isMetric(metric)) throw new UsageError(`--metric: unknown metric '${metric}'; expected one of ${METRICS.join(', ')}`)
  if (v.band !== undefined && v.band !== 'minmax' && v.band !== 'ci95') throw new UsageError(`--band: expected minmax or ci95, got '${v.band}'`)
  if (v.cdf !== undefined && v.cdf !== 'fct' && v.cdf !== 'queue' && v.cdf !== 'slowdown') throw new UsageError(`--cdf: expected fct, queue or slowdown, got '${v.cdf}'`)
  const core = openExistingCore(v.db, { forReading: true })
  const store = core.opts.store
  try {
    const experimentIds = names.map((n) => resolveExperiment(store, n))
    const result = compareRuns(store, {
      experimentIds,
      metric,
      ...(v.by !== undefined ? { by: v.by } : {}),
      ...(v.baseline !== undefined ? { baseline: v.baseline } : {}),
      ...(v.band !== undefined ? { band: v.band as 'minmax' | 'ci95' } : {}),
      ...(v.where !== undefined ? { query: v.where } : {}),
      ...(v.cdf !== undefined ? { cdf: v.cdf as 'fct' | 'queue' | 'slowdown' } : {}),
    })
    const cdf = v.cdf as 'fct' | 'queue' | 'slowdown' | undefined
    process.stdout.write(v.json ? formatCompareJson(result) : formatCompareTable(result) + (cdf ? formatCompareCdfs(result, cdf) : ''))
    if (v.where === undefined || v.where.trim() === '') return 0
    // A value no run has (a typo, a scheme not run) is named with the values there are. No run
    // matching at all ends with exit code 1, as grep does, so a script can tell.
    const hints = unmatchedHints(parseQuery(v.where), loadRecords(store, experimentIds))
    for (const h of hints) process.stderr.write(`p4lab: --where: ${h}\n`)
    if (result.matched > 0) return 0
    if (hints.length === 0) process.stderr.write(`p4lab: --where: no run matches '${v.where}'\n`)
    return 1
  } catch (err) {
    if (err instanceof QueryError) {
      problem(`p4lab: --where: ${err.message}\n${err.pointer()}`)
      return 2
    }
    if (err instanceof CompareError) {
      problem(`p4lab: ${err.message}`)
      return 2
    }
    throw err
  } finally {
    store.close()
  }
}

export const compareCommand: Command = {
  name: 'compare',
  usage: [
    'compare EXPERIMENT... [--metric M] [--by FIELD] [--baseline SCHEME] [--band ci95|minmax] [--where QUERY] [--cdf fct|queue|slowdown] [--db PATH] [--json]',
    '    a metric (mean, p50, p99, small.mean, large.p99, probeOverhead, ...) against a parameter (default load),',
    '    one line per scheme with the mean and a band across seeds; EXPERIMENT is a name or an id',
    "    (--where 'scheme = hula and load >= 0.5', 'status != failed', 'tag:paper'); a value no run has is named",
    '    with the values there are, and when no run matches the table is empty and the exit code is 1',
  ],
  run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...COMMON_OPTIONS,
        metric: { type: 'string' },
        by: { type: 'string' },
        baseline: { type: 'string' },
        band: { type: 'string' },
        where: { type: 'string' },
        cdf: { type: 'string' },
      },
    })
    if (positionals.length === 0) throw new UsageError('compare takes at least one experiment (a name or an id)')
    return cmdCompare(positionals, values)
  },
}
