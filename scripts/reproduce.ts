// `npm run reproduce [-- --quick] [--only NAME] [--db PATH] [--parallel N]`: runs every
// seed-paper template on the embedded fabric through the same core as the app, then
// writes docs/results.md: each claim of the seed beside what we measured, and whether it
// holds. --quick runs a quarter of the flows and one seed per template; --only NAME re-runs one
// template and replaces its rows and section in the existing page.
import { availableParallelism, cpus } from 'node:os'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'
import { parseDocument } from 'yaml'
import { createNodeCore, type Core } from '../src-main/core'
import { packageRoot } from '../src-main/core/paths'
import { CLAIMS, type Claim, type Measure } from './reproduce-claims'
import { Results } from './reproduce-results'

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    db: { type: 'string' },
    parallel: { type: 'string' },
    out: { type: 'string' },
  },
})
const root = packageRoot()
const quick = values.quick
const dbPath = values.db ?? join(mkdtempSync(join(tmpdir(), 'p4lab-reproduce-')), 'reproduce.db')
const parallelRuns = values.parallel ? Number(values.parallel) : availableParallelism()
const outFile = values.out ?? join(root, 'docs', 'results.md')

/**
 * The template's text, scaled down for --quick: a quarter of the flows, at most QUICK_MAX_FLOWS
 * (the paper-scale templates have 10,000-20,000), and the first seed.
 */
const QUICK_MAX_FLOWS = 1000

function templateText(name: string): string {
  const text = readFileSync(join(root, 'resources', 'experiments', `${name}.yaml`), 'utf8')
  if (!quick) return text
  const doc = parseDocument(text)
  const flows = doc.getIn(['workload', 'flows'])
  if (typeof flows === 'number') doc.setIn(['workload', 'flows'], Math.max(150, Math.min(QUICK_MAX_FLOWS, Math.round(flows / 4))))
  const seeds = doc.get('seeds')
  const first = (seeds as { items?: Array<{ value?: number }> })?.items?.[0]?.value
  if (typeof first === 'number') doc.set('seeds', [first])
  doc.set('name', `${doc.get('name')}-quick`)
  return doc.toString()
}

function fmtValue(m: Measure, v: number): string {
  if (v === Infinity) return m.unit === 'x' ? '∞ (divided by 0)' : '∞'
  if (!Number.isFinite(v)) return 'n/a'
  if (m.unit === 'packets') return `${v}`
  if (m.unit === 'x') return `${v.toFixed(2)}×`
  if (m.unit === '%') return `${(v * 100).toFixed(3)} %`
  if (m.unit === 'ms') return `${(v / 1e6).toFixed(3)} ms`
  return v.toFixed(3)
}

async function runTemplate(core: Core, name: string): Promise<Results> {
  const yaml = templateText(name)
  const file = join(root, 'resources', 'experiments', `${name}.yaml`)
  const exp = core.findOrCreateExperiment(yaml, file)
  const runs = core.runExperiment(exp.id)
  await core.orchestrator.wait(runs.map((r) => r.id))
  const spec = core.parseOrThrow(yaml, file)
  return new Results(core, spec, runs.map((r) => core.opts.store.getRun(r.id)!))
}

async function main(): Promise<void> {
  if (values.only && !(values.only in CLAIMS)) throw new Error(`--only ${values.only}: no such template; the templates are ${Object.keys(CLAIMS).join(', ')}`)
  if (values.only && !existsSync(outFile)) throw new Error(`--only updates ${outFile}, which does not exist yet: run npm run reproduce without --only first`)
  const core = createNodeCore({ dbPath, parallelRuns })
  core.start()
  const started = Date.now()
  const sections: string[] = []
  const summary: string[] = []
  for (const [name, claims] of Object.entries(CLAIMS)) {
    if (values.only && values.only !== name) continue
    const t0 = Date.now()
    process.stderr.write(`reproduce: ${name}...\n`)
    const results = await runTemplate(core, name)
    const failed = results.runs.filter((r) => r.status !== 'done')
    const rows = claims.map((c: Claim) => {
      let measured = NaN
      let error = ''
      try {
        measured = c.measure.value(results)
      } catch (err) {
        error = (err as Error).message
      }
      const holds = !Number.isNaN(measured) ? (c.measure.holds(measured) ? 'yes' : 'no') : 'n/a'
      summary.push(`| ${name} | ${c.claim} | ${holds} |`)
      return `| ${c.claim} | ${c.seed} | ${error ? `error: ${error}` : fmtValue(c.measure, measured)} | ${holds} |`
    })
    // Unfinished flows are left out of every FCT statistic: say how many, never drop them silently.
    const total = results.runs.reduce((a, r) => a + (r.stats?.flows ?? 0), 0)
    const unfinished = results.runs.reduce((a, r) => a + (r.stats ? r.stats.flows - r.stats.finished : 0), 0)
    const unfinishedText = `${unfinished} of ${total} flows unfinished (${total > 0 ? ((100 * unfinished) / total).toFixed(2) : '0.00'} %), left out of the statistics`
    const secs = ((Date.now() - t0) / 1000).toFixed(0)
    sections.push(
      [
        `## ${name}`,
        '',
        `${results.spec.description} ${results.runs.length} runs (${failed.length} not done), ${secs} s; ${unfinishedText}.`,
        '',
        '| claim | seed paper | measured | holds |',
        '|---|---|---|---|',
        ...rows,
        '',
        ...(claims[0]?.why ? [`Why: ${claims.map((c) => c.why).filter((w, i, a) => w && a.indexOf(w) === i).join(' ')}`, ''] : []),
      ].join('\n'),
    )
  }
  const total = ((Date.now() - started) / 1000).toFixed(0)
  if (values.only) {
    // One template re-run: its rows and section replace theirs in the existing page.
    const doc = mergeOne(values.only, summary, sections[0] ?? '')
    writeFileSync(outFile, doc)
    process.stderr.write(`reproduce: updated ${values.only} in ${outFile} (database ${dbPath}) in ${total} s\n`)
    core.opts.store.close()
    return
  }
  const doc = [
    '# Results: the papers\' claims on the embedded fabric',
    '',
    `Produced by \`npm run reproduce${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}, ` +
      `${cpus().length} cores, ${parallelRuns} runs at a time, ${total} s in all` +
      `${quick ? ` (quick mode: a quarter of the flows, at most ${QUICK_MAX_FLOWS}, one seed per template)` : ''}. ` +
      'Ratios are "how many times better" (the other scheme\'s figure divided by ours); a claim holds when the ' +
      'measured ratio is at least the paper\'s, or, for a qualitative "better" claim, when it is at least 1.05× ' +
      '(a difference within 5 % is not counted as better). Every ' +
      'number below was measured by this script; none is copied from a paper. Parameters and their sources: ' +
      'each template\'s comments and `resources/experiments/`.',
    '',
    '| template | claim | holds |',
    '|---|---|---|',
    ...summary,
    '',
    ...sections,
  ].join('\n')
  writeFileSync(outFile, doc + '\n')
  process.stderr.write(`reproduce: wrote ${outFile} (database ${dbPath}) in ${total} s\n`)
  core.opts.store.close()
}

/**
 * The existing results page with one template's summary rows and section replaced by a
 * fresh run of it alone (its section says so). Throws when the page lacks either: the page
 * comes from a full run first.
 */
function mergeOne(name: string, summary: string[], section: string): string {
  const today = new Date().toISOString().slice(0, 10)
  const fresh = section.replace(/^(## .*\n\n.*?)\.\n/, `$1 (re-run alone with --only on ${today}).\n`)
  const lines = readFileSync(outFile, 'utf8').split('\n')
  const rowsAt = lines.findIndex((l) => l.startsWith(`| ${name} | `))
  const kept = lines.filter((l) => !l.startsWith(`| ${name} | `))
  if (rowsAt < 0) throw new Error(`${outFile} has no rows for ${name}: run npm run reproduce without --only`)
  kept.splice(rowsAt, 0, ...summary)
  const text = kept.join('\n')
  const start = text.indexOf(`\n## ${name}\n`)
  if (start < 0) throw new Error(`${outFile} has no section for ${name}: run npm run reproduce without --only`)
  const next = text.indexOf('\n## ', start + 1)
  return text.slice(0, start + 1) + fresh + (next < 0 ? '\n' : text.slice(next))
}

main().catch((err) => {
  process.stderr.write(`reproduce: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exitCode = 1
})
