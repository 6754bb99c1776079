// The reproduce machinery (scripts/reproduce-run.ts) on two tiny templates with the real
// simulator, into a temporary directory: the page's columns, the ±30 % verdict on claims whose
// values are known, a sensitivity sweep for the claims that miss (with a variant the spec
// refuses shown as refused), the order of schemes, the closing note, the figures (parsed by
// Chromium, with their axes), --only replacing one template's section in the page, and --skip
// leaving a template out with what running it takes, for a later --only to fill in.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Claim, Measure } from '../../scripts/reproduce-claims'
import { Ledger } from '../../scripts/reproduce-ledger'
import type { Results } from '../../scripts/reproduce-results'
import { flowsText, reproduce } from '../../scripts/reproduce-run'
import type { TemplateSettings } from '../../scripts/reproduce-settings'
import { launchChromium } from '../helpers/browser'
import { UsageError } from '../../src-main/cli/common'
import { tempCore } from '../helpers/core'

const TOPO = 'topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }'
const SWEEP_YAML = `name: tiny-sweep\ndescription: "tiny, two loads"\ntestbed: sim\n${TOPO}\ntransport: { kind: newreno, minRto: 1ms }\nschemes: [ecmp, rps]\nworkload: { kind: web-search, load: [0.3, 0.5], flows: 40 }\nseeds: [1, 2]\n`
const CDF_YAML = `name: tiny-cdf\ndescription: "tiny, one load"\ntestbed: sim\n${TOPO}\nschemes: [ecmp, rps]\nworkload: { kind: web-search, load: 0.5, flows: 40 }\nseeds: [1]\n`

/** A value known in advance, read off real runs (so the sweep knows its points): ECMP's mean over itself, times k. */
const known = (k: number): Measure => ({ unit: 'x', value: (r: Results) => (k * r.fct('ecmp', 0.5, 'meanNs')) / r.fct('ecmp', 0.5, 'meanNs'), holds: (v) => v >= 1 })
const ratio = (paper: number): Measure => ({ unit: 'x', value: (r: Results) => r.fct('ecmp', 0.5, 'meanNs') / r.fct('rps', 0.5, 'meanNs'), holds: (v) => v >= paper })

const CLAIMS: Record<string, Claim[]> = {
  'tiny-sweep': [
    { claim: 'known 1.25 against 1', seed: '1×', measure: known(1.25) },
    { claim: 'known 0.69 against 1', seed: '1×', measure: known(0.69), why: 'a value set by the test to miss.' },
    { claim: 'RPS vs ECMP at 50 %', seed: '1000×', measure: ratio(1000) },
    // Within ±30 % of the paper's 1.25× and yet not the gain it claims: a tie passes the band.
    { claim: 'known 1.10 against 1.25', seed: '1.25×', measure: { ...known(1.1), holds: (v) => v >= 1.25 } },
    { claim: 'a qualitative claim that holds', seed: 'better', measure: { unit: 'x', value: () => 2, holds: (v) => v > 1 } },
  ],
  'tiny-cdf': [{ claim: 'a qualitative claim that holds', seed: 'better', measure: { unit: 'x', value: () => 2, holds: (v) => v > 1 } }],
}

const OPEN: TemplateSettings['open'] = [
  { path: 'transport.minRto', default: '1ms', reason: 'set by the test', variants: [{ label: '1ms', value: '1ms' }, { label: '200ms', value: '200ms' }] },
  { path: 'topology.queuePackets', default: '100 packets', reason: 'set by the test', variants: [{ label: '100 packets', value: 100 }, { label: '20 packets', value: 20 }] },
  { path: 'workload.destinations', default: 'other-racks', reason: 'set by the test', variants: [{ label: 'other-pods', value: 'other-pods' }] },
]
const SETTINGS: Record<string, TemplateSettings> = {
  'tiny-sweep': {
    paper: 'a test',
    given: ['fabric: a tiny leaf-spine'],
    open: OPEN,
    order: { what: 'mean FCT at 50 % load', schemes: ['rps', 'ecmp'], value: (r, s) => r.fct(s, 0.5, 'meanNs') },
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'Tiny Fig. 1' },
  },
  'tiny-cdf': { paper: 'a test', given: ['fabric: a tiny leaf-spine'], open: OPEN, figure: { kind: 'fct-cdf', paperFigure: 'Tiny Fig. 2' } },
}

const { core, dbPath } = tempCore(2)
core.start()
const ledger = new Ledger(dbPath)
afterAll(() => {
  core.orchestrator.cancelAll()
  ledger.close()
  core.opts.store.close()
})

const dir = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-test-'))
writeFileSync(join(dir, 'tiny-sweep.yaml'), SWEEP_YAML)
writeFileSync(join(dir, 'tiny-cdf.yaml'), CDF_YAML)
const outFile = join(dir, 'docs', 'results.md')
const run = (only?: string, o: { skip?: string[]; outFile?: string; fingerprint?: string; claims?: Record<string, Claim[]> } = {}) =>
  reproduce({ core, templatesDir: dir, claims: CLAIMS, settings: SETTINGS, quick: false, only, outFile, parallelRuns: 2, log: () => {}, ledger, fingerprint: 'test', ...o })

/** The markdown table that starts with `head`, as rows of cells. */
function table(page: string, head: string): string[][] {
  const lines = page.split('\n')
  const at = lines.findIndex((l) => l.startsWith(head))
  expect(at, head).toBeGreaterThanOrEqual(0)
  const out: string[][] = []
  for (let i = at + 2; i < lines.length && lines[i].startsWith('|'); i++) out.push(lines[i].slice(2, -2).split(' | '))
  return out
}
const section = (page: string, name: string) => {
  const start = page.indexOf(`\n## ${name}\n`)
  return page.slice(start, page.indexOf('\n## ', start + 1))
}

describe('npm run reproduce on tiny templates', { timeout: 600_000 }, () => {
  let page = ''
  it('writes the page: per claim the paper, ours, ours/paper, within ±30 % and holds', async () => {
    const r = await run()
    page = readFileSync(outFile, 'utf8')
    expect(r.page).toBe(page)
    expect(page).toContain('Simulator fingerprint test (a hash of the worker bundle')
    expect(page).toMatch(/Total time of the full run: \d+\.\d (s|min|h) of CPU over 1 invocation \(\d+ runs: all run by this invocation; (the CPU time of \d+ could not be read and counts as their wall time; )?wall time \d+\.\d (s|min|h); the invocations. processes, storing the results and any runs cancelled included, used \d+\.\d (s|min|h) of CPU\)/)
    const rows = table(page, '| template | claim | paper | ours | ours/paper | within ±30 % | holds |')
    const row = (claim: string) => rows.find((c) => c[1] === claim)!
    expect(row('known 1.25 against 1')).toEqual(['tiny-sweep', 'known 1.25 against 1', '1.00×', '1.25×', '1.25', 'yes', 'yes'])
    expect(row('known 0.69 against 1')).toEqual(['tiny-sweep', 'known 0.69 against 1', '1.00×', '0.69×', '0.69', 'no', 'no'])
    expect(row('known 1.10 against 1.25')).toEqual(['tiny-sweep', 'known 1.10 against 1.25', '1.25×', '1.10×', '0.88', 'yes', 'no'])
    expect(row('RPS vs ECMP at 50 %').slice(2, 7)).toEqual(['1000.00×', expect.stringMatching(/^\d+\.\d\d×$/), expect.stringMatching(/^0\.00$/), 'no', 'no'])
    expect(row('a qualitative claim that holds').slice(2)).toEqual(['better (qualitative)', '2.00×', '—', '— (qualitative)', 'yes'])
    const order = rows.find((c) => c[0] === 'tiny-sweep' && c[1].startsWith('order of schemes'))!
    expect(order[2]).toBe('rps < ecmp')
    expect(['yes', 'no']).toContain(order[6])
    // Ours: "<" for a step of at least 5 %, "≈" for a smaller one, which does not match.
    expect(order[3]).toMatch(/^(rps|ecmp) (<|≈) (ecmp|rps)$/)
    expect(order[6]).toBe(order[3] === 'rps < ecmp' ? 'yes' : 'no')
    expect(section(page, 'tiny-sweep')).toContain('Order of schemes by mean FCT at 50 % load, best first (a step counts when it is at least 5 % better; ≈ marks one that is not): ')
    expect(page).toContain("## Closing note\n\n2 of 4 numeric claims are within ±30 % of the paper's: tiny-sweep: known 1.25 against 1; tiny-sweep: known 1.10 against 1.25.")
  })

  it('gives the claims that miss or do not hold a reason and a sweep over the open settings, one at a time', () => {
    const s = section(page, 'tiny-sweep')
    const claims = table(s, '| claim | paper | ours | ours/paper | within ±30 % | holds | reason |')
    expect(claims.find((c) => c[0] === 'known 0.69 against 1')![6]).toBe('reason 1; sweep below')
    expect(claims.find((c) => c[0] === 'known 1.10 against 1.25')![6]).toBe('reason 1; sweep below')
    expect(claims.find((c) => c[0] === 'known 1.25 against 1')![6]).toBe('')
    expect(s).toContain('1. a value set by the test to miss.')
    expect(s).toContain('| transport.minRto | 1ms | set by the test | 1ms, 200ms |')
    expect(s).toContain('### Sensitivity sweep')
    const sweep = table(s, '| setting | value |')
    // The template's own row, then each variant that differs from it; other-pods is refused on a leaf-spine.
    expect(sweep.map((c) => `${c[0]}=${c[1]}`)).toEqual(['(the template)=as declared above', 'transport.minRto=200ms', 'topology.queuePackets=20 packets', 'workload.destinations=other-pods'])
    // Columns: the claims that miss or do not hold (0.69, RPS vs ECMP, 1.10 against 1.25), each
    // cell our value against the paper's and whether it holds.
    expect(s).toMatch(/\| setting \| value \| known 0\.69 against 1 \(paper: 1\.00×\) \| RPS vs ECMP at 50 % \(paper: 1000\.00×\) \| known 1\.10 against 1\.25 \(paper: 1\.25×\) \|/)
    expect(sweep[0][2]).toBe("0.69× (0.69 of the paper's, does not hold)")
    expect(sweep[0][4]).toBe("1.10× (0.88 of the paper's, within ±30 %, does not hold)")
    expect(sweep[2][3]).toMatch(/^\d+\.\d\d× \(0\.00 of the paper's, does not hold\)$/)
    expect(sweep[3][2]).toMatch(/^refused: .*other-pods/)
    expect(section(page, 'tiny-cdf')).not.toContain('### Sensitivity sweep')
  })

  it("shows the figure's order in every row of its sweep, and across the figures in the closing note", () => {
    const s = section(page, 'tiny-sweep')
    expect(s).toMatch(/\| known 1\.10 against 1\.25 \(paper: 1\.25×\) \| order of schemes by mean FCT at 50 % load \(paper: rps < ecmp\) \|\n/)
    const sweep = table(s, '| setting | value |')
    const orders = sweep.map((c) => c[5])
    for (const cell of orders.slice(0, 3)) expect(cell).toMatch(/^(rps|ecmp) (<|≈) (ecmp|rps), (matches|does not match)$/)
    for (const cell of orders.slice(0, 3)) expect(cell.endsWith(', matches')).toBe(cell.startsWith('rps < ecmp'))
    expect(orders[3]).toMatch(/^refused: .*other-pods/)
  })

  it('draws each figure as SVG beside its table, with titled axes, bands across seeds, and a log x for the CDF', async () => {
    expect(page).toContain('![Tiny Fig. 1](figures/tiny-sweep.svg) (bands: min to max across seeds)')
    expect(page).toContain('![Tiny Fig. 2](figures/tiny-cdf.svg)')
    const browser = await launchChromium()
    try {
      const p = await browser.newPage()
      const parse = (svg: string) =>
        p.evaluate((text) => {
          // Runs in Chromium; the node project has no DOM types, so name the little it uses.
          type El = { textContent: string | null; nodeName: string }
          type Doc = { documentElement: El; querySelector(sel: string): El | null; querySelectorAll(sel: string): ArrayLike<El> }
          const Parser = (globalThis as unknown as { DOMParser: new () => { parseFromString(t: string, type: string): Doc } }).DOMParser
          const doc = new Parser().parseFromString(text, 'image/svg+xml')
          const q = (sel: string) => Array.from(doc.querySelectorAll(sel)).map((e) => e.textContent ?? '')
          return { error: doc.querySelector('parsererror')?.textContent ?? null, root: doc.documentElement.nodeName, x: q('.xtitle'), y: q('.ytitle'), lines: q('polyline.line').length, bands: q('polygon.band').length, legend: q('.legend text') }
        }, svg)
      const load = await parse(readFileSync(join(dir, 'docs', 'figures', 'tiny-sweep.svg'), 'utf8'))
      expect(load).toMatchObject({ error: null, root: 'svg', x: ['offered load (share of the host link rate)'], lines: 2 })
      expect(load.y[0]).toMatch(/^mean FCT \((ms|µs)\)$/)
      expect(load.bands).toBe(2)
      expect(load.legend.slice(0, 2)).toEqual(['ecmp', 'rps'])
      const cdf = await parse(readFileSync(join(dir, 'docs', 'figures', 'tiny-cdf.svg'), 'utf8'))
      expect(cdf).toMatchObject({ error: null, root: 'svg', x: ['flow completion time, log scale'], y: ['share of flows (%)'], lines: 2 })
    } finally {
      await browser.close()
    }
  })

  it('--only redoes one template (reusing its runs) and replaces its rows and section, keeping the others', async () => {
    const before = section(page, 'tiny-sweep')
    await run('tiny-cdf')
    const after = readFileSync(outFile, 'utf8')
    expect(section(after, 'tiny-sweep')).toBe(before)
    expect(section(after, 'tiny-cdf')).toMatch(/rewritten alone with --only on \d{4}-\d\d-\d\d, simulator test, as the header's: \d+\.\d (s|min|h) of CPU over 2 invocations \(2 runs: 0 run by this invocation, 2 reused from runs finished /)
    expect(after.match(/\| tiny-cdf \| /g)).toHaveLength(1)
    expect(after.match(/## Closing note/g)).toHaveLength(1)
    expect(existsSync(join(dir, 'docs', 'figures', 'tiny-cdf.svg'))).toBe(true)
  })

  it('--only on another simulator says, in the section it rewrites, that the rest of the page is not its', async () => {
    await run('tiny-cdf', { fingerprint: 'sim-b' })
    const after = readFileSync(outFile, 'utf8')
    expect(after).toContain('Simulator fingerprint test (')
    expect(section(after, 'tiny-cdf')).toContain("rewritten alone with --only on ")
    expect(section(after, 'tiny-cdf')).toContain("simulator sim-b, not the header's test: the other sections come from another simulator")
    expect(section(after, 'tiny-sweep')).not.toContain('sim-b')
  })
})

describe('npm run reproduce --skip', { timeout: 600_000 }, () => {
  const skipOut = join(dir, 'skip', 'results.md')
  const rowsOf = (page: string, name: string) => table(page, '| template | claim | paper | ours | ours/paper | within ±30 % | holds |').filter((c) => c[0] === name)

  it('leaves a template out: its rows say "not run", its section what running it takes, and --only fills it in', async () => {
    await run(undefined, { skip: ['tiny-sweep'], outFile: skipOut })
    let page = readFileSync(skipOut, 'utf8')
    expect(page).toContain('Total time of the run without tiny-sweep (--skip): ')
    const skipped = rowsOf(page, 'tiny-sweep')
    // Its five claims and its order of schemes, each with the paper's side only.
    expect(skipped).toHaveLength(6)
    for (const c of skipped) expect(c.slice(3)).toEqual(['not run', '—', '—', '—'])
    expect(skipped.find((c) => c[1] === 'RPS vs ECMP at 50 %')![2]).toBe('1000.00×')
    expect(section(page, 'tiny-sweep')).toMatch(/Not run by this invocation \(--skip\): \d+ runs to run \(\d+ reusable\), about \d+\.\d (s|min|h) of CPU, .* of wall time at 2 runs at a time/)
    expect(section(page, 'tiny-sweep')).toContain('`npm run reproduce -- --only tiny-sweep` runs it')
    expect(section(page, 'tiny-sweep')).not.toContain('### Sensitivity sweep')
    expect(rowsOf(page, 'tiny-cdf')[0].slice(3)).toEqual(['2.00×', '—', '— (qualitative)', 'yes'])
    expect(page).toContain('Not run on this page: 6 rows of tiny-sweep')
    expect(page).toContain('0 of 0 figures rank their schemes as the paper does.')

    await run('tiny-sweep', { outFile: skipOut })
    page = readFileSync(skipOut, 'utf8')
    expect(rowsOf(page, 'tiny-sweep').filter((c) => c[3] === 'not run')).toEqual([])
    expect(rowsOf(page, 'tiny-sweep').find((c) => c[1] === 'known 1.25 against 1')).toEqual(['tiny-sweep', 'known 1.25 against 1', '1.00×', '1.25×', '1.25', 'yes', 'yes'])
    expect(section(page, 'tiny-sweep')).toContain('### Sensitivity sweep')
    expect(page).not.toContain('Not run on this page')
    expect(page).toMatch(/\n[01] of 1 figures rank their schemes as the paper does\.\n/)
  })

  it('refuses a template it does not know, --only with two templates, --skip with --only, and a --skip of everything, as usage errors', async () => {
    await expect(run(undefined, { skip: ['no-such'], outFile: skipOut })).rejects.toThrow(/--skip no-such: no such template; the templates are tiny-sweep, tiny-cdf/)
    // a usage error prints its message alone (exit 2), not a stack trace
    await expect(run('no-such', { outFile: skipOut })).rejects.toBeInstanceOf(UsageError)
    await expect(run('tiny-cdf,tiny-sweep', { outFile: skipOut })).rejects.toThrow(/--only takes one template.*run it once per template/)
    await expect(run('tiny-cdf', { skip: ['tiny-sweep'], outFile: skipOut })).rejects.toThrow(/--only and --skip together/)
    await expect(run(undefined, { skip: ['tiny-sweep', 'tiny-cdf'], outFile: skipOut })).rejects.toThrow(/--skip leaves no template to run/)
  })

  it('--only on a template without claims of its own (a baseline another template reads) rewrites its section, with no rows to replace', async () => {
    const baseOut = join(dir, 'docs', 'baseline.md')
    const claims = { ...CLAIMS, 'tiny-cdf': [] }
    await run(undefined, { outFile: baseOut, claims })
    expect(rowsOf(readFileSync(baseOut, 'utf8'), 'tiny-cdf')).toEqual([])
    await run('tiny-cdf', { outFile: baseOut, claims })
    const after = readFileSync(baseOut, 'utf8')
    expect(section(after, 'tiny-cdf')).toContain('rewritten alone with --only')
    expect(rowsOf(after, 'tiny-sweep').length).toBeGreaterThan(0)
  })
})

describe("a section's count of unfinished flows", { timeout: 600_000 }, () => {
  const runOf = async (yaml: string) => {
    const exp = core.findOrCreateExperiment(yaml, null)
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    return runs.map((r) => core.opts.store.getRun(r.id)!)
  }

  it('counts sized flows left unfinished, and tells long-running flows (no size, sent until the stop) apart from them', async () => {
    const cut = await runOf(`name: tiny-cut\ntestbed: sim\n${TOPO}\nschemes: [ecmp]\nworkload: { kind: web-search, load: 0.5, flows: 40 }\nseeds: [1]\nstopAfter: 300us\n`)
    const long = await runOf(`name: tiny-long\ntestbed: sim\n${TOPO}\nschemes: [ecmp]\nworkload: { kind: long-lived, pairs: [[0, 2], [1, 3]] }\nseeds: [1]\nstopAfter: 200us\n`)
    const c = cut[0].completion!
    expect(c.unfinished).toBeGreaterThan(0)
    expect(long[0].completion).toMatchObject({ flows: 2, unbounded: 2, unfinished: 0 })
    const share = ((100 * c.unfinished) / c.flows).toFixed(2)
    expect(flowsText(cut)).toBe(`${c.unfinished} of ${c.flows} flows unfinished (${share} %), left out of the statistics`)
    // A long-running flow is not an unfinished one: the page had read "2 of 2 flows unfinished (100.00 %)".
    expect(flowsText(long)).toBe('2 long-running flows without a size, each sending until the run stopped, as they are meant to')
    expect(flowsText([...cut, ...long])).toBe(`${c.unfinished} of ${c.flows} flows unfinished (${share} %), left out of the statistics; 2 long-running flows without a size, each sending until the run stopped, as they are meant to`)
  })
})

describe('a sweep of a claim that compares with another template', { timeout: 600_000 }, () => {
  // tiny-vs's claim divides its ECMP mean by tiny-base's: the sweep must run tiny-base with the
  // same cut (first seed) and the same setting in each row, not divide by tiny-base's full runs.
  const base = `name: tiny-base\ndescription: "the baseline"\ntestbed: sim\n${TOPO}\ntransport: { kind: newreno, minRto: 1ms }\nschemes: [ecmp]\nworkload: { kind: web-search, load: 0.5, flows: 40 }\nseeds: [1, 2]\n`
  const vs = base.replace('name: tiny-base', 'name: tiny-vs').replace('the baseline', 'against the baseline').replace('flows: 40', 'flows: 60')
  const overBase: Measure = { unit: 'x', value: (r) => r.fct('ecmp', 0.5, 'meanNs') / r.companion('tiny-base').fct('ecmp', 0.5, 'meanNs'), holds: (v) => v >= 100 }
  const claims: Record<string, Claim[]> = { 'tiny-base': [], 'tiny-vs': [{ claim: 'ECMP over the baseline', seed: '100×', measure: overBase }] }
  const open: TemplateSettings['open'] = [OPEN[0]]
  const settings: Record<string, TemplateSettings> = { 'tiny-vs': { paper: 'a test', given: ['fabric: a tiny leaf-spine'], open } }

  it('re-runs the baseline alike in every row, and divides by that', async () => {
    const t = tempCore(2)
    t.core.start()
    const led = new Ledger(t.dbPath)
    const tdir = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-alike-'))
    writeFileSync(join(tdir, 'tiny-base.yaml'), base)
    writeFileSync(join(tdir, 'tiny-vs.yaml'), vs)
    try {
      const r = await reproduce({ core: t.core, templatesDir: tdir, claims, settings, quick: false, outFile: join(tdir, 'docs', 'results.md'), parallelRuns: 2, log: () => {}, ledger: led, fingerprint: 'test' })
      const s = section(r.page, 'tiny-vs')
      expect(s).toContain('tiny-base, which a claim compares with, is re-run alike in every row.')
      const sweep = table(s, '| setting | value |')
      expect(sweep.map((c) => `${c[0]}=${c[1]}`)).toEqual(['(the template)=as declared above', 'transport.minRto=200ms'])
      const store = t.core.opts.store
      const meanOf = (experiment: string) => {
        const exp = store.findExperimentByName(experiment)
        expect(exp, experiment).toBeDefined()
        const runs = store.listRuns({ experimentId: exp!.id, shown: 'all' }).filter((x) => x.status === 'done')
        expect(runs.map((x) => x.seed)).toEqual([1])
        return Number(runs[0].stats?.meanNs)
      }
      const expected = [meanOf('tiny-vs-sweep') / meanOf('tiny-base-sweep'), meanOf('tiny-vs-sweep-transport.minRto-1') / meanOf('tiny-base-sweep-transport.minRto-1')]
      expect(sweep.map((c) => c[2].split(' ')[0])).toEqual(expected.map((x) => `${x.toFixed(2)}×`))
    } finally {
      t.core.orchestrator.cancelAll()
      led.close()
      t.core.opts.store.close()
    }
  })
})

describe('a figure whose order of schemes does not match, though no claim misses', { timeout: 600_000 }, () => {
  // A tie by construction: the order reads each scheme's runs at 50 % (its points) and gives both the same value.
  const tie = `name: tiny-tie\ndescription: "a tie"\ntestbed: sim\n${TOPO}\ntransport: { kind: newreno, minRto: 1ms }\nschemes: [ecmp, rps]\nworkload: { kind: web-search, load: 0.5, flows: 40 }\nseeds: [1]\n`
  const settings: Record<string, TemplateSettings> = {
    'tiny-tie': {
      paper: 'a test',
      given: ['fabric: a tiny leaf-spine'],
      open: [OPEN[0]],
      order: { what: 'a tie', schemes: ['rps', 'ecmp'], value: (r, s) => r.fct(s, 0.5, 'meanNs') * 0 + 1 },
    },
  }

  it('gets a sweep of its own, with the order its one column', async () => {
    const t = tempCore(2)
    t.core.start()
    const led = new Ledger(t.dbPath)
    const tdir = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-tie-'))
    writeFileSync(join(tdir, 'tiny-tie.yaml'), tie)
    try {
      const r = await reproduce({ core: t.core, templatesDir: tdir, claims: { 'tiny-tie': [] }, settings, quick: false, outFile: join(tdir, 'docs', 'results.md'), parallelRuns: 2, log: () => {}, ledger: led, fingerprint: 'test' })
      const s = section(r.page, 'tiny-tie')
      expect(s).toContain('Matches: **no**.')
      expect(s).toContain('### Sensitivity sweep')
      expect(s).toContain('| setting | value | order of schemes by a tie (paper: rps < ecmp) |')
      expect(table(s, '| setting | value |')).toEqual([
        ['(the template)', 'as declared above', 'rps ≈ ecmp, does not match'],
        ['transport.minRto', '200ms', 'rps ≈ ecmp, does not match'],
      ])
      expect(r.page).toContain('0 of 1 figures rank their schemes as the paper does.')
    } finally {
      t.core.orchestrator.cancelAll()
      led.close()
      t.core.opts.store.close()
    }
  })
})
