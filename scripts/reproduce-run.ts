// The machinery of `npm run reproduce` (scripts/reproduce.ts is its command line): run each
// paper template through the core, measure its claims, compare each with the paper's number
// (within ±30 % or not), check the figure's order of schemes, sweep the open settings for the
// claims that miss or do not hold, draw the figure, and write the page. Apart from the script so
// that a test can run it on a tiny template into a temporary directory.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { parseDocument } from 'yaml'
import type { Core } from '../src-main/core'
import { UsageError } from '../src-main/cli/common'
import { VISIBLY_BETTER, type Claim } from './reproduce-claims'
import { figurePlot, figureSvg } from './reproduce-figures'
import { Results } from './reproduce-results'
import type { TemplateSettings } from './reproduce-settings'
import { fmtDuration, Runner, type Planned, type RunSpec } from './reproduce-runner'
import type { Ledger } from './reproduce-ledger'
import type { RunRow } from '../src-main/core/store'
import type { SlurmPlace } from './reproduce-slurm'
import { alikeRows, pointsOf, rowKey, sweepRows, sweepTable, type Points, type Row, type SweepOptions, type SweepScale } from './reproduce-sweep'
import { timeText, writePage, type Section } from './reproduce-page'
import { fmtRatio, fmtValue, missed, orderCheck, paperValue, verdict } from './reproduce-verdict'

export interface ReproduceOptions {
  core: Core
  /** Where the templates (NAME.yaml) are. */
  templatesDir: string
  claims: Record<string, Claim[]>
  settings: Record<string, TemplateSettings>
  quick: boolean
  /** Re-run one template and replace its rows and section in the existing page (or write a page of it alone when there is none). */
  only?: string
  /**
   * Templates left out of this invocation: their rows say "not run" and their section gives the
   * runs and CPU they need, so a later `--only NAME` fills them in (a page without them is still
   * a whole page).
   */
  skip?: readonly string[]
  /** The page; figures go to figures/ beside it. */
  outFile: string
  parallelRuns: number
  log: (line: string) => void
  /** What reproduce remembers between invocations, inside the run database (reproduce-ledger.ts). */
  ledger: Ledger
  /** The simulator's fingerprint (simulatorFingerprint): a done run is reused only under the same one. */
  fingerprint: string
  /** Ignore earlier runs: run everything again. */
  fresh?: boolean
  /** Print what would run and what would be reused, with an estimate, and run nothing. */
  planOnly?: boolean
  /** Aborted (Ctrl-C): the runs under way are cancelled, finished ones kept, and reproduce throws Interrupted. */
  signal?: AbortSignal
  /** The command line, recorded with the invocation. */
  args?: string
  /** --on slurm: the runs (templates and sweeps) go to this cluster (reproduce-slurm.ts). */
  slurm?: SlurmPlace
}

/** --quick: a quarter of the flows, at most this many, and the first seed. */
export const QUICK_MAX_FLOWS = 1000
/** The sweep's scale: at most this many flows a run, the first seed. */
export const SWEEP_MAX_FLOWS = 2000
export const QUICK_SWEEP_MAX_FLOWS = 300

const esc = (s: string) => s.replace(/\|/g, '\\|')

function templateText(dir: string, name: string, quick: boolean): string {
  const text = readFileSync(join(dir, `${name}.yaml`), 'utf8')
  if (!quick) return text
  const doc = parseDocument(text)
  const flows = doc.getIn(['workload', 'flows'])
  if (typeof flows === 'number') doc.setIn(['workload', 'flows'], Math.max(150, Math.min(QUICK_MAX_FLOWS, Math.round(flows / 4))))
  const seeds = doc.get('seeds') as { items?: Array<{ value?: number }> } | undefined
  const first = seeds?.items?.[0]?.value
  if (typeof first === 'number') doc.set('seeds', [first])
  doc.set('name', `${doc.get('name')}-quick`)
  return doc.toString()
}

interface Measured {
  claim: Claim
  value: number
  error: string
  paper: number | undefined
  holds: boolean
  /** Missed (reproduce-verdict.ts), or within ±30 % without holding (short of the paper's number: a tie passes the band against 1.35×): either gets the reason and the sweep. */
  open: boolean
  picked: Results['picked']
  /** The other templates the measure compared with (a baseline), for the sweep to run alike. */
  companions: string[]
}

function measure(results: Results, c: Claim): Measured {
  const r = new Results(results.core, results.spec, results.runs, results.companions)
  let value = NaN
  let error = ''
  try {
    value = c.measure.value(r)
  } catch (err) {
    error = (err as Error).message
  }
  const holds = !Number.isNaN(value) && c.measure.holds(value)
  const paper = paperValue(c)
  return { claim: c, value, error, paper, holds, open: missed(paper, value, holds) || !holds, picked: r.picked, companions: [...r.companionsRead] }
}

/** A claim's cells: paper, ours, ours/paper, within ±30 %, holds. */
function cells(m: Measured): string[] {
  const ours = m.error ? `error: ${esc(m.error)}` : fmtValue(m.claim.measure, m.value)
  const holds = Number.isNaN(m.value) ? 'n/a' : m.holds ? 'yes' : 'no'
  if (m.paper === undefined) return [`${esc(m.claim.seed)} (qualitative)`, ours, '—', '— (qualitative)', holds]
  const v = verdict(m.paper, m.value)
  return [fmtValue(m.claim.measure, m.paper), ours, fmtRatio(v.ratio), v.within ? 'yes' : 'no', holds]
}


/** A template's text as run: after --quick's edits. */
function templateSpec(o: ReproduceOptions, name: string): RunSpec {
  return { key: name, yaml: templateText(o.templatesDir, name, o.quick), file: join(o.templatesDir, `${name}.yaml`) }
}

async function runTemplate(o: ReproduceOptions, runner: Runner, name: string, claims: Claim[], runs: RunRow[], companions: ReadonlyMap<string, Results>): Promise<Section> {
  const { core } = o
  const { yaml, file } = templateSpec(o, name)
  const exp = core.findOrCreateExperiment(yaml, file)
  const spec = core.parseOrThrow(yaml, file)
  const results = new Results(core, spec, runs, companions)
  const settings = o.settings[name]
  const measured = claims.map((c) => measure(results, c))

  // Reasons, numbered once per template; an open claim cites its own or the template's first.
  const whys = claims.map((c) => c.why).filter((w, i, a): w is string => !!w && a.indexOf(w) === i)
  const reasonOf = (m: Measured) => {
    if (!m.open) return ''
    const w = m.claim.why ?? whys[0]
    return w ? `reason ${whys.indexOf(w) + 1}` : 'no reason found yet'
  }
  const summary = measured.map((m) => `| ${name} | ${esc(m.claim.claim)} | ${cells(m).join(' | ')} |`)
  const rows = measured.map((m) => `| ${esc(m.claim.claim)} | ${cells(m).join(' | ')} | ${reasonOf(m)}${m.open && settings?.open.some((s) => s.variants.length) ? '; sweep below' : ''} |`)

  const out: string[] = []
  const failed = results.runs.filter((r) => r.status !== 'done').length
  const unfinishedText = flowsText(results.runs)
  const lines: string[] = []
  lines.push('| claim | paper | ours | ours/paper | within ±30 % | holds | reason |', '|---|---|---|---|---|---|---|', ...rows, '')
  if (whys.length) lines.push(...whys.map((w, i) => `${i + 1}. ${w}`), '')

  // The figure's order of schemes against the paper's, and the points it reads (for the sweep).
  let orderOk = true
  let orderPicked: Results['picked'] = []
  if (settings?.order) {
    const ord = settings.order
    const r = new Results(core, spec, runs, companions)
    let check: ReturnType<typeof orderCheck> | undefined
    let err = ''
    try {
      check = orderCheck(ord.schemes, (s) => ord.value(r, s), VISIBLY_BETTER)
    } catch (e) {
      err = (e as Error).message
    }
    orderOk = !!check?.matches
    orderPicked = r.picked
    const paperText = ord.schemes.join(' < ')
    const oursText = check ? check.text : `error: ${err}`
    const ok = orderOk ? 'yes' : 'no'
    lines.push(`Order of schemes by ${ord.what}, best first (a step counts when it is at least 5 % better; ≈ marks one that is not): the paper's ${paperText}; ours ${oursText}. Matches: **${ok}**.`, '')
    summary.push(`| ${name} | order of schemes (${esc(ord.what)}) | ${paperText} | ${esc(oursText)} | — | — | ${ok} |`)
  }

  // The figure, beside its table.
  if (settings?.figure) {
    const title = `${settings.figure.paperFigure}${o.quick ? ', quick run' : ''}`
    const plot = figurePlot(core, exp.id, runs.map((r) => r.id), spec.schemes, settings.figure, title)
    if (plot) {
      const figDir = join(dirname(o.outFile), 'figures')
      mkdirSync(figDir, { recursive: true })
      const svgFile = join(figDir, `${name}.svg`)
      writeFileSync(svgFile, figureSvg(plot))
      const bands = settings.figure.kind === 'fct-cdf' ? 'flows pooled over seeds' : plot.band ? 'bands: min to max across seeds' : 'one seed: no band'
      const note = settings.figure.note ? `; ${settings.figure.note}` : ''
      lines.push(`![${settings.figure.paperFigure}](${relative(dirname(o.outFile), svgFile)}) (${bands}${note})`, '')
    } else lines.push('No figure: no run finished.', '')
  }

  // Settings given and open.
  if (settings) {
    lines.push(`Paper: ${settings.paper}. Settings the paper gives: ${settings.given.join('; ')}.`, '')
    lines.push('| open setting | the template\'s value | why | swept over |', '|---|---|---|---|')
    for (const s of settings.open) {
      lines.push(`| ${s.path} | ${esc(s.default)} | ${esc(s.reason)} | ${s.variants.length ? s.variants.map((v) => esc(v.label)).join(', ') : esc(s.note ?? 'not swept')} |`)
    }
    lines.push('')
  } else lines.push('The settings this paper gives and leaves open are not declared yet (scripts/reproduce-settings.ts).', '')

  // The sensitivity sweep, for the claims that miss or do not hold.
  // An order that does not match is swept too, its points with the claims'.
  const swept = measured.filter((m) => m.open)
  if ((swept.length || !orderOk) && settings && settings.open.some((s) => s.variants.length)) {
    const scale: SweepScale = { maxFlows: o.quick ? QUICK_SWEEP_MAX_FLOWS : SWEEP_MAX_FLOWS }
    const points = pointsOf([...swept.flatMap((m) => m.picked), ...(orderOk ? [] : orderPicked)], spec.schemes)
    o.log(`reproduce: ${name}: sensitivity sweep over ${settings.open.filter((s) => s.variants.length).length} settings...`)
    const so: SweepOptions = { name, text: yaml, file, claims: swept.map((m) => m.claim), points, settings, scale }
    const rows = sweepRows(so)
    // A baseline a claim compares with (another template's runs) is cut and varied alike, row by row.
    const alike = [...new Set(swept.flatMap((m) => m.companions))].map((c) => {
      const t = templateSpec(o, c)
      return { name: c, file: t.file, rows: alikeRows(rows, { name: c, text: t.yaml, points, scale }) }
    })
    const checked = (row: Row, at: string) => {
      if (row.error) return
      try {
        core.parseOrThrow(row.yaml, at)
      } catch (err) {
        row.error = (err as Error).message.split('\n')[0]
      }
    }
    for (const row of rows) checked(row, file)
    for (const a of alike) {
      a.rows.forEach((row, i) => {
        checked(row, a.file)
        // A row whose baseline cannot run has nothing to compare with.
        if (row.error && !rows[i].error) rows[i].error = `${a.name}: ${row.error}`
      })
    }
    const specs = rows.flatMap((r, i) => (r.error ? [] : [{ key: rowKey(name, i, r), yaml: r.yaml, file }, ...alike.map((a) => ({ key: rowKey(a.name, i, a.rows[i]), yaml: a.rows[i].yaml, file: a.file }))]))
    const sweepRuns = await runner.run(runner.plan(specs))
    const companionsOf = (i: number) => new Map(alike.map((a) => [a.name, new Results(core, core.parseOrThrow(a.rows[i].yaml, a.file), sweepRuns.get(rowKey(a.name, i, a.rows[i])) ?? [])]))
    // The order gets its column wherever the sweep ran its points (always, when it does not match).
    const order = settings.order && orderPicked.length && orderPicked.every((p) => covers(points, p)) ? settings.order : undefined
    const table = sweepTable(core, so, rows, sweepRuns, companionsOf, order)
    const alikeText = alike.length ? ` ${alike.map((a) => a.name).join(' and ')}, which a claim compares with, is re-run alike in every row.` : ''
    lines.push(
      '### Sensitivity sweep',
      '',
      `The points of the claims that miss or do not hold (${points.schemes.join(', ')}${points.loads ? ` at load ${points.loads.join(', ')}` : ''}) re-run with one open setting changed at a time, ` +
        `at most ${scale.maxFlows} flows a run and the first seed only, so the template's row here is itself a smaller run than the table above.${alikeText}`,
      '',
      ...table,
      '',
    )
  }
  const reused = runs.filter((r) => runner.isReused(r.id)).length
  out.push(`## ${name}`, '', `${results.spec.description} ${results.runs.length} runs (${failed} not done, ${reused} reused from an earlier invocation); ${unfinishedText}.`, '', ...notDone(results.runs), ...lines)
  return { name, summary, text: out.join('\n') }
}

/** A sweep's points include this one: its scheme, and its load (or all loads, when it reads every load). */
function covers(points: Points, p: { scheme: string; load: number | undefined }): boolean {
  if (!points.schemes.includes(p.scheme)) return false
  if (points.loads === undefined) return true
  return p.load !== undefined && points.loads.includes(p.load)
}

/** What a skipped template's runs would take: the runs not reusable, and the estimate. */
function skippedCost(runner: Runner, p: Planned): string {
  const run = p.cells.filter((c) => !c.reuse)
  const e = runner.estimate(run)
  return (
    `${run.length} runs to run (${p.cells.length - run.length} reusable), about ${fmtDuration(e.cpuSeconds)} of CPU, ` +
    `${fmtDuration(e.cpuSeconds / Math.max(1, runner.parallelRuns))} of wall time at ${runner.parallelRuns} runs at a time (estimated from ${e.from})`
  )
}

/** A template left out with --skip: its claims' rows say "not run", and its section what running it takes. */
function skippedSection(o: ReproduceOptions, p: Planned, runner: Runner): Section {
  const name = p.key
  const settings = o.settings[name]
  const notRun = (claim: string, paper: string) => `| ${name} | ${esc(claim)} | ${paper} | not run | — | — | — |`
  const summary = o.claims[name].map((c) => {
    const paper = paperValue(c)
    return notRun(c.claim, paper === undefined ? `${esc(c.seed)} (qualitative)` : fmtValue(c.measure, paper))
  })
  if (settings?.order) summary.push(notRun(`order of schemes (${settings.order.what})`, settings.order.schemes.join(' < ')))
  const text = [
    `## ${name}`,
    '',
    `${p.spec.description} Not run by this invocation (--skip): ${skippedCost(runner, p)}. ` +
      `\`npm run reproduce -- --only ${name}\` runs it and replaces this section and its rows above.`,
    '',
    '| claim | paper |',
    '|---|---|',
    ...summary.map((l) => {
      const c = l.slice(2, -2).split(' | ')
      return `| ${c[1]} | ${c[2]} |`
    }),
    '',
  ].join('\n')
  return { name, summary, text }
}

/** The cells whose run is not done, each with its status and why: the claims above read done runs only. */
function notDone(runs: readonly RunRow[]): string[] {
  const bad = runs.filter((r) => r.status !== 'done')
  if (!bad.length) return []
  return [`Not done, left out of the claims: ${bad.map((r) => `${r.scheme} load ${r.load} seed ${r.seed} ${r.status}${r.error ? ` (${esc(r.error.split('\n')[0])})` : ''}`).join('; ')}.`, '']
}

/** --plan: what would run and what would be reused, per template, with an estimate. */
function planText(runner: Runner, planned: readonly Planned[]): string[] {
  const lines: string[] = []
  const todo = planned.flatMap((p) => p.cells.filter((c) => !c.reuse))
  for (const p of planned) {
    const run = p.cells.filter((c) => !c.reuse)
    const reused = p.cells.filter((c) => c.reuse)
    const made = reused.map((c) => c.reuse!.run.finishedAt?.slice(0, 10) ?? '?').sort()
    const est = runner.estimate(run).cpuSeconds
    lines.push(
      `${p.key}: ${run.length} to run${run.length ? ` (about ${fmtDuration(est)} of CPU)` : ''}, ${reused.length} reused` +
        (made.length ? ` (made ${made[0] === made[made.length - 1] ? made[0] : `${made[0]} to ${made[made.length - 1]}`})` : '') +
        (run.some((c) => c.open) ? `; ${run.filter((c) => c.open).length} still open on Slurm from an earlier invocation (--on slurm follows them)` : ''),
    )
  }
  const e = runner.estimate(todo)
  const arrays = planned.filter((p) => p.cells.some((c) => !c.reuse)).length
  const where = runner.slurm
    ? `to submit to Slurm on ${runner.slurm.where} as ${arrays} job array${arrays === 1 ? '' : 's'} (one per template)`
    : 'to run'
  const wall = runner.slurm ? 'the wall time is the cluster\'s' : `${fmtDuration(e.cpuSeconds / Math.max(1, runner.parallelRuns))} of wall time on ${runner.parallelRuns} cores`
  lines.push(
    `total: ${todo.length} runs ${where}, ${planned.reduce((a, p) => a + p.cells.length, 0) - todo.length} reused; about ${fmtDuration(e.cpuSeconds)} of CPU, ` +
      `${wall} (estimated from ${e.from}); ` +
      `the sensitivity sweeps of the claims that miss or do not hold come on top${runner.slurm ? ' (on Slurm too)' : ''}, at most ` +
      `${SWEEP_MAX_FLOWS} flows a run, and are decided by the results`,
  )
  return lines
}

export async function reproduce(o: ReproduceOptions): Promise<{ seconds: number; page: string }> {
  // Bad flags are usage errors: the command prints the message alone and exits 2, not a stack trace.
  if (o.only?.includes(',')) throw new UsageError(`--only ${o.only}: --only takes one template (it replaces that template's rows and section in the page); run it once per template`)
  if (o.only && !(o.only in o.claims)) throw new UsageError(`--only ${o.only}: no such template; the templates are ${Object.keys(o.claims).join(', ')}`)
  const skip = o.skip ?? []
  for (const n of skip) {
    if (!(n in o.claims)) throw new UsageError(`--skip ${n}: no such template; the templates are ${Object.keys(o.claims).join(', ')}`)
  }
  if (o.only && skip.length) throw new UsageError('--only and --skip together: --only already runs one template alone')
  const names = Object.keys(o.claims).filter((n) => (!o.only || o.only === n) && !skip.includes(n))
  if (!names.length) throw new UsageError('--skip leaves no template to run')
  const invocation = o.planOnly ? { id: 0, startedAt: new Date().toISOString(), wallMs: 0, cpuMs: 0 } : o.ledger.startInvocation(o.args ?? '')
  const runner = new Runner({ core: o.core, ledger: o.ledger, invocation, fingerprint: o.fingerprint, fresh: !!o.fresh, parallelRuns: o.parallelRuns, log: o.log, signal: o.signal, ...(o.slurm ? { slurm: o.slurm } : {}) })
  try {
    if (!o.planOnly) await runner.adoptCutOff()
    const planned = runner.plan(names.map((n) => templateSpec(o, n)))
    const skipped = runner.plan(skip.map((n) => templateSpec(o, n)))
    if (o.planOnly) {
      const cut = runner.cutOffNote()
      const page = [...planText(runner, planned), ...skipped.map((p) => `${p.key}: skipped (--skip): ${skippedCost(runner, p)}`), ...(cut ? [cut] : [])].join('\n')
      o.log(page)
      return { seconds: 0, page }
    }
    // Every template's runs at once, longest first (reproduce-runner.ts); then each template's claims and sweeps in order.
    const runs = await runner.run(planned)
    const companions = new Map(planned.map((p) => [p.spec.name, new Results(o.core, p.spec, runs.get(p.key)!)]))
    const sections: Section[] = []
    for (const name of Object.keys(o.claims)) {
      const left = skipped.find((p) => p.key === name)
      if (left) sections.push(skippedSection(o, left, runner))
      else if (names.includes(name)) sections.push(await runTemplate(o, runner, name, o.claims[name], runs.get(name)!, companions))
    }
    const seconds = runner.saveWall() / 1000
    const totals = runner.totals()
    const quick = o.quick ? `quick mode: a quarter of the flows, at most ${QUICK_MAX_FLOWS}, one seed per template; sweeps at most ${QUICK_SWEEP_MAX_FLOWS} flows a run` : ''
    const page = writePage({ ...o, quick, slurmWhere: o.slurm?.where }, sections, timeText(totals, o.ledger.invocations(totals.invocationIds)))
    return { seconds, page }
  } finally {
    runner.stop()
  }
}

/**
 * The section's flows as the runs' completion counts them: those with a size that did not
 * finish (a count and a share, never dropped without a word), and apart from them the flows
 * without a size (long-running), which send until the run stops and are not meant to finish.
 */
export function flowsText(runs: readonly RunRow[]): string {
  let flows = 0
  let unfinished = 0
  let unbounded = 0
  for (const r of runs) {
    if (r.completion) {
      flows += r.completion.flows
      unfinished += r.completion.unfinished
      unbounded += r.completion.unbounded
    } else if (r.stats) {
      flows += r.stats.flows
      unfinished += r.stats.flows - r.stats.finished
    }
  }
  const sized = flows - unbounded
  const long = `${unbounded} long-running flows without a size, each sending until the run stopped, as they are meant to`
  if (sized === 0 && unbounded) return long
  const text = `${unfinished} of ${sized} flows unfinished (${sized > 0 ? ((100 * unfinished) / sized).toFixed(2) : '0.00'} %), left out of the statistics`
  return unbounded ? `${text}; ${long}` : text
}
