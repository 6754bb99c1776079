// The page `npm run reproduce` writes (docs/results.md): the header with the time behind it and
// the simulator it ran on, the summary table of every claim, each template's section (written by
// reproduce-run.ts), and the closing note that counts what lands within ±30 %; and --only's merge
// of one fresh section into an existing page.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { basename, dirname } from 'node:path'
import type { Invocation } from './reproduce-ledger'
import { fmtDuration, type Totals } from './reproduce-runner'

export interface Section {
  name: string
  summary: string[]
  text: string
}

/** What the page's header says about how it was made. */
export interface PageOptions {
  outFile: string
  only?: string
  skip?: readonly string[]
  /** --quick: what it cut (else empty). */
  quick: string
  /** Where the runs ran, when on Slurm. */
  slurmWhere?: string
  parallelRuns: number
  fingerprint: string
  log: (line: string) => void
}

export const SUMMARY_HEAD = ['| template | claim | paper | ours | ours/paper | within ±30 % | holds |', '|---|---|---|---|---|---|---|']

/** A markdown table row's cells, an escaped "\\|" kept inside its cell. */
const cellsOf = (line: string): string[] => line.replace(/^\|\s?|\s?\|$/g, '').split(/\s?(?<!\\)\|\s?/)

/**
 * Each figure's order of schemes in every row of its sensitivity sweep, read back from the
 * sections' sweep tables (their last column, when the sweep ran the order's points), one table
 * per paper with two figures or more, so that it shows which single setting, if any, gives all
 * of a paper's figures the paper's order. Read from the page's text, it stays true when --only
 * rewrites one section.
 */
export function ordersAcrossSweeps(body: string): string[] {
  const papers = new Map<string, Array<{ name: string; rows: Map<string, boolean> }>>()
  for (const part of `\n${body}`.split('\n## ').slice(1)) {
    const name = part.slice(0, part.indexOf('\n'))
    const at = part.indexOf('\n### Sensitivity sweep\n')
    if (at < 0) continue
    const table = part.slice(at).split('\n').filter((l) => l.startsWith('| '))
    if (table.length < 2) continue
    const col = cellsOf(table[0]).findIndex((c) => c.startsWith('order of schemes by '))
    if (col < 0) continue
    const rows = new Map<string, boolean>()
    for (const line of table.slice(1)) {
      const c = cellsOf(line)
      rows.set(c[0] === '(the template)' ? c[0] : `${c[0]}: ${c[1]}`, c[col].endsWith(', matches'))
    }
    const paper = /\nPaper: (.+?)\. Settings the paper gives/.exec(part)?.[1] ?? 'a paper not named'
    papers.set(paper, [...(papers.get(paper) ?? []), { name, rows }])
  }
  const out: string[] = []
  for (const [paper, figures] of papers) {
    if (figures.length < 2) continue
    const keys = [...new Set(figures.flatMap((f) => [...f.rows.keys()]))]
    const lost = (k: string) => figures.filter((f) => f.rows.get(k) !== true).map((f) => f.name)
    const everywhere = keys.filter((k) => lost(k).length === 0)
    const fewest = Math.min(...keys.map((k) => lost(k).length))
    const closest = keys.filter((k) => lost(k).length === fewest)
    out.push(
      `${paper}: the order of schemes in each figure's sensitivity sweep (one open setting changed at a time, one seed, smaller runs than the figures' own; yes: each scheme at least 5 % better than the next, in the paper's order; —: not in that figure's sweep).`,
      '',
      `| setting | ${figures.map((f) => f.name).join(' | ')} |`,
      `|---|${figures.map(() => '---|').join('')}`,
      ...keys.map((k) => `| ${k} | ${figures.map((f) => (f.rows.has(k) ? (f.rows.get(k) ? 'yes' : 'no') : '—')).join(' | ')} |`),
      '',
      everywhere.length
        ? `Each of these ${figures.length} figures ranks its schemes as the paper does under ${everywhere.join('; ')}.`
        : `No single setting gives all ${figures.length} figures the paper's order; the closest, ${closest.join('; ')}, ${closest.length === 1 ? 'loses' : 'each lose'} ${fewest === 1 ? 'one' : fewest}: ${closest.map((k) => lost(k).join(', ')).join('; ')}.`,
      '',
    )
  }
  return out
}

/** The closing note: which numeric claims are within ±30 % of the paper's now, from the summary rows, and the orders across the sweeps, from the sections. */
export function closingNote(summaryLines: readonly string[], body = ''): string {
  const rows = summaryLines.filter((l) => l.startsWith('| ') && !l.startsWith('| template |') && !l.startsWith('|---'))
  const cols = rows.map((l) => l.slice(2, -2).split(' | '))
  const numeric = cols.filter((c) => c[5] === 'yes' || c[5] === 'no')
  const within = numeric.filter((c) => c[5] === 'yes')
  const orders = cols.filter((c) => c[1].startsWith('order of schemes') && c[3] !== 'not run')
  const notRun = cols.filter((c) => c[3] === 'not run')
  const notRunTemplates = notRun.map((c) => c[0]).filter((n, i, a) => a.indexOf(n) === i)
  return [
    '## Closing note',
    '',
    `${within.length} of ${numeric.length} numeric claims are within ±30 % of the paper's` + (within.length ? `: ${within.map((c) => `${c[0]}: ${c[1]}`).join('; ')}.` : '.'),
    // The band lets a tie pass against a paper's 1.35×: say how many of those reach the paper's figure.
    ...(within.length ? [holdText(within.filter((c) => c[6] === 'yes').length, within.filter((c) => c[6] !== 'yes').length)] : []),
    `${orders.filter((c) => c[6] === 'yes').length} of ${orders.length} figures rank their schemes as the paper does.`,
    ...(notRun.length ? [`Not run on this page: ${notRun.length} rows of ${notRunTemplates.join(', ')} (their sections say what running them takes).`] : []),
    '',
    ...ordersAcrossSweeps(body),
  ].join('\n')
}

function holdText(hold: number, short: number): string {
  return `Of these, ${hold} ${hold === 1 ? 'holds' : 'hold'} (reach${hold === 1 ? 'es' : ''} the paper's figure); ${short} ${short === 1 ? 'falls' : 'fall'} short of it inside the band.`
}

/** The time behind the page, as it is: the runs' CPU time and every invocation's wall time. */
export function timeText(t: Totals, invocations: readonly Invocation[]): string {
  const walls = invocations.map((i) => fmtDuration(i.wallMs / 1000))
  const wallSum = invocations.reduce((a, i) => a + i.wallMs, 0)
  const reused = t.reused
    ? `${t.runs - t.reused} run by this invocation, ${t.reused} reused from runs finished ${t.reusedFrom?.slice(0, 16).replace('T', ' ')} to ${t.reusedTo?.slice(0, 16).replace('T', ' ')} UTC`
    : 'all run by this invocation'
  const unknown = t.cpuUnknown ? `; the CPU time of ${t.cpuUnknown} could not be read and counts as their wall time` : ''
  const processCpu = invocations.reduce((a, i) => a + i.cpuMs, 0)
  return (
    `${fmtDuration(t.cpuMs / 1000)} of CPU over ${invocations.length} invocation${invocations.length === 1 ? '' : 's'} ` +
    `(${t.runs} runs: ${reused}${unknown}; wall time ${invocations.length === 1 ? walls[0] : `${walls.join(' + ')} = ${fmtDuration(wallSum / 1000)}`}; ` +
    `the invocations' processes, storing the results and any runs cancelled included, used ${fmtDuration(processCpu / 1000)} of CPU)`
  )
}

export function writePage(o: PageOptions, sections: Section[], timeText: string): string {
  const skip = o.skip ?? []
  let page: string
  if (o.only && existsSync(o.outFile)) {
    page = mergeOne(o.outFile, sections[0], timeText, o.fingerprint)
  } else {
    const summary = sections.flatMap((s) => s.summary)
    page = [
      "# Results: the papers' claims on the embedded fabric",
      '',
      `Produced by \`npm run reproduce${o.quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}, ` +
        `${o.slurmWhere ? `the runs it made ran as Slurm job arrays on ${o.slurmWhere} (one per template and per sweep row), not in this machine's worker threads` : `${cpus().length} cores, ${o.parallelRuns} runs at a time`}. ` +
        `Total time of the ${o.only ? `run of ${o.only} alone` : skip.length ? `run without ${skip.join(', ')} (--skip)` : 'full run'}: ${timeText}` +
        `${o.quick ? ` (${o.quick})` : ''}. ` +
        `Simulator fingerprint ${o.fingerprint} (a hash of the worker bundle and of the sources that decide what a run computes, ` +
        'scripts/reproduce-ledger.ts; `npm run reproduce -- --plan` on a checkout prints its own, and reuses these runs only if they are equal). ' +
        "Ratios are \"how many times better\" (the other scheme's figure divided by ours). For each claim: the paper's number, " +
        "ours, ours over the paper's, and whether ours is within ±30 % of it; a qualitative claim (\"better\", \"within 1 ms\") has no number " +
        'and is judged by its test alone (holds), a "better" being at least 1.05× (a difference within 5 % is not counted as better). ' +
        "Every claim that misses, or lands within ±30 % of the paper's number without reaching it, gets a sensitivity sweep over the settings the paper leaves open, in its template's section. " +
        'Every number below was measured by this script; none is copied from a paper. Parameters and their sources: ' +
        "each template's comments and `resources/experiments/`.",
      '',
      ...SUMMARY_HEAD,
      ...summary,
      '',
      ...sections.map((s) => s.text),
      closingNote(summary, sections.map((s) => s.text).join('\n')),
    ].join('\n')
  }
  mkdirSync(dirname(o.outFile), { recursive: true })
  writeFileSync(o.outFile, page)
  o.log(`reproduce: wrote ${o.outFile}: ${timeText}`)
  return page
}

/**
 * The existing page with one template's summary rows and section replaced by a fresh run of it
 * alone (its section says so), and the closing note recounted. Throws when the page lacks
 * either: the page comes from a full run first.
 */
function mergeOne(outFile: string, section: Section, timeText: string, fingerprint: string): string {
  const name = section.name
  const today = new Date().toISOString().slice(0, 10)
  let text = readFileSync(outFile, 'utf8')
  // The section names its simulator, and says so when the header's is another (or older
  // pages, none): its numbers and the rest of the page then come from different simulators.
  const header = /Simulator fingerprint (\S+) /.exec(text.split('\n| template |')[0])?.[1]
  const which =
    header === fingerprint ? `simulator ${fingerprint}, as the header's`
    : header === undefined ? `simulator ${fingerprint}; the header names none (a page from before fingerprints), so the other sections' simulator is not known`
    : `simulator ${fingerprint}, not the header's ${header}: the other sections come from another simulator`
  const fresh = section.text.replace(/^(## .*\n\n.*?)\.\n/, `$1 (rewritten alone with --only on ${today}, ${which}: ${timeText}).\n`)
  if (!text.includes(SUMMARY_HEAD[0])) {
    throw new Error(`${outFile} predates the page's present columns (paper, ours, ours/paper, within ±30 %): run npm run reproduce without --only, or give --out a new file`)
  }
  const lines = text.split('\n')
  const rowsAt = lines.findIndex((l) => l.startsWith(`| ${name} | `))
  // A template without claims (a baseline another one reads) has no rows, on the page or here.
  if (section.summary.length > 0) {
    if (rowsAt < 0) throw new Error(`${basename(outFile)} has no rows for ${name}: run npm run reproduce without --only`)
    const kept = lines.filter((l) => !l.startsWith(`| ${name} | `))
    kept.splice(rowsAt, 0, ...section.summary)
    text = kept.join('\n')
  }
  const start = text.indexOf(`\n## ${name}\n`)
  if (start < 0) throw new Error(`${basename(outFile)} has no section for ${name}: run npm run reproduce without --only`)
  const next = text.indexOf('\n## ', start + 1)
  text = text.slice(0, start + 1) + fresh + (next < 0 ? '\n' : text.slice(next))
  const note = text.indexOf('\n## Closing note\n')
  const head = text.indexOf('\n| template |')
  const summary = text.slice(head + 1, text.indexOf('\n\n', head + 1)).split('\n')
  const body = note < 0 ? text : text.slice(0, note + 1)
  return (note < 0 ? text.trimEnd() + '\n\n' : body) + closingNote(summary, body)
}
