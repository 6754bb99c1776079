// The pure rules of docs/results.md: the paper's number of a claim, the ±30 % verdict, which
// claims get a sweep, the order-of-schemes check, the overrides a sweep writes into an
// experiment file, and the closing note's count.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import type { Measure } from '../../scripts/reproduce-claims'
import { CLAIMS } from '../../scripts/reproduce-claims'
import { closingNote, ordersAcrossSweeps } from '../../scripts/reproduce-page'
import { applyOverrides, SETTINGS } from '../../scripts/reproduce-settings'
import { pointsOf, sweepText } from '../../scripts/reproduce-sweep'
import { fmtRatio, fmtValue, missed, orderCheck, paperValue, verdict } from '../../scripts/reproduce-verdict'

const m = (unit: Measure['unit']): Measure => ({ unit, value: () => 0, holds: () => true })

describe('paperValue', () => {
  it('reads the number the paper gives, in the measure\'s unit', () => {
    expect(paperValue({ seed: '3.7×', measure: m('x') })).toBe(3.7)
    expect(paperValue({ seed: '≈1.07× (7 % better)', measure: m('x') })).toBe(1.07)
    expect(paperValue({ seed: '≈5× (with a link failure)', measure: m('x') })).toBe(5)
    expect(paperValue({ seed: '90 %', measure: m('%') })).toBeCloseTo(0.9, 12)
    expect(paperValue({ seed: '0.175 %', measure: m('%') })).toBeCloseTo(0.00175, 12)
  })
  it('leaves qualitative claims without a number, and an explicit paper value wins', () => {
    for (const seed of ['better', 'within 1 ms', 'holds', 'wide margin', 'DHLB lower at low load', '(DHLB adapts its period)']) {
      expect(paperValue({ seed, measure: m('x') }), seed).toBeUndefined()
    }
    // A percentage on a ratio measure is not the ratio: no number rather than a wrong one.
    expect(paperValue({ seed: '7 % better', measure: m('x') })).toBeUndefined()
    expect(paperValue({ seed: 'within 1 ms', paper: 1e6, measure: m('ms') })).toBe(1e6)
  })
  it('gives every ×-claim of the templates a number', () => {
    for (const claims of Object.values(CLAIMS)) {
      for (const c of claims) if (/^≈?\d.*×/.test(c.seed)) expect(paperValue(c), c.claim).toBeGreaterThan(0)
    }
  })
})

describe('verdict', () => {
  it('is within ±30 % at the edges and not past them', () => {
    expect(verdict(3.7, 3.7)).toEqual({ ratio: 1, within: true })
    expect(verdict(10, 7).within).toBe(true)
    expect(verdict(10, 13).within).toBe(true)
    expect(verdict(10, 6.9).within).toBe(false)
    expect(verdict(10, 13.1).within).toBe(false)
    expect(verdict(3.7, 1.03).ratio).toBeCloseTo(1.03 / 3.7, 12)
    expect(verdict(3.7, 1.03).within).toBe(false)
  })
  it('counts an unmeasured or infinite value as outside', () => {
    expect(verdict(19, Infinity)).toEqual({ ratio: Infinity, within: false })
    expect(verdict(19, NaN).within).toBe(false)
    expect(fmtRatio(Infinity)).toBe('∞')
    expect(fmtRatio(NaN)).toBe('n/a')
    expect(fmtRatio(0.2784)).toBe('0.28')
  })
  it('sends numeric claims outside ±30 % and qualitative ones that fail to the sweep', () => {
    expect(missed(3.7, 1.03, false)).toBe(true)
    // Holding is not enough: 30× against the paper's 19× holds "at least 19×" but is not the paper's number.
    expect(missed(19, 30, true)).toBe(true)
    expect(missed(3.7, 3.5, false)).toBe(false)
    expect(missed(undefined, 1.2, true)).toBe(false)
    expect(missed(undefined, 1.0, false)).toBe(true)
  })
})

describe('fmtValue', () => {
  it('writes a test that passes or not as yes or no, not as a number', () => {
    // A strict ranking read "0.000" on the page.
    expect(fmtValue({ unit: 'yes/no' }, 1)).toBe('yes')
    expect(fmtValue({ unit: 'yes/no' }, 0)).toBe('no')
    expect(fmtValue({ unit: 'x' }, 1.234)).toBe('1.23×')
  })
  it('marks every claim of the templates that returns 1 or 0 as yes/no', () => {
    for (const claims of Object.values(CLAIMS)) for (const c of claims) if (c.seed === 'holds') expect(c.measure.unit, c.claim).toBe('yes/no')
  })
})

describe('orderCheck', () => {
  const order = (paper: string[], v: Record<string, number>) => orderCheck(paper, (s) => v[s], 1.05)
  it('ranks by the lower value and matches only the paper\'s order, each step at least the margin', () => {
    expect(order(['hula', 'conga-prime', 'ecmp'], { hula: 1, 'conga-prime': 2, ecmp: 3 })).toEqual({ ours: ['hula', 'conga-prime', 'ecmp'], text: 'hula < conga-prime < ecmp', matches: true })
    expect(order(['hula', 'conga-prime', 'ecmp'], { hula: 2, 'conga-prime': 1, ecmp: 3 })).toEqual({ ours: ['conga-prime', 'hula', 'ecmp'], text: 'conga-prime < hula < ecmp', matches: false })
  })
  it('calls a step within the margin a tie (≈), which does not match, as a 1 % difference between seeds would not', () => {
    // HULA Fig. 6's shape: HULA 6 % ahead of ECMP, CONGA′ 4 %: HULA and CONGA′ 2 % apart.
    const fig6 = order(['hula', 'conga-prime', 'ecmp'], { hula: 100, 'conga-prime': 102, ecmp: 106 })
    expect(fig6).toEqual({ ours: ['hula', 'conga-prime', 'ecmp'], text: 'hula ≈ conga-prime ≈ ecmp', matches: false })
    // Fig. 5a's under random server choice: all within 1 %, in no meaningful order.
    expect(order(['hula', 'conga-prime', 'ecmp'], { hula: 199.5, 'conga-prime': 198.4, ecmp: 199.0 })).toMatchObject({ text: 'conga-prime ≈ ecmp ≈ hula', matches: false })
    expect(order(['hula', 'ecmp'], { hula: 100, ecmp: 105 }).matches).toBe(true)
    expect(order(['hula', 'ecmp'], { hula: 100, ecmp: 104.9 }).matches).toBe(false)
  })
  it('does not count a tie or a missing value as the paper\'s order; an empty queue is below any other', () => {
    expect(order(['hula', 'ecmp'], { hula: 5, ecmp: 5 }).matches).toBe(false)
    expect(order(['hula', 'ecmp'], { hula: NaN, ecmp: 3 })).toEqual({ ours: ['ecmp', 'hula'], text: 'ecmp ≈ hula', matches: false })
    expect(order(['hula', 'ecmp'], { hula: 0, ecmp: 3 })).toMatchObject({ text: 'hula < ecmp', matches: true })
    expect(order(['hula', 'ecmp'], { hula: 0, ecmp: 0 }).matches).toBe(false)
  })
})

const TEMPLATE = `# a comment that stays
name: t
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 250 }
transport: { kind: newreno, minRto: 1ms }
buffer: { kind: shared, size: 1MB, pfc: { alpha: 0.125 } }
schemes: [ecmp, conga, hula]
workload: { kind: web-search, load: [0.3, 0.5, 0.7], flows: 5000 }
seeds: [4, 5, 6]
`

describe('overrides and the sweep\'s scale', () => {
  it('writes values at dotted paths, removes with null, and keeps the comments', () => {
    const out = applyOverrides(TEMPLATE, { 'transport.minRto': '200ms', 'topology.queuePackets': 600, 'buffer.pfc.alpha': 0.5, 'workload.destinations': 'any' })
    const doc = parseDocument(out).toJS()
    expect(doc.transport).toEqual({ kind: 'newreno', minRto: '200ms' })
    expect(doc.topology.queuePackets).toBe(600)
    expect(doc.buffer.pfc.alpha).toBe(0.5)
    expect(doc.workload.destinations).toBe('any')
    expect(out).toContain('# a comment that stays')
    expect(parseDocument(applyOverrides(TEMPLATE, { buffer: null })).toJS().buffer).toBeUndefined()
  })
  it('refuses a path through a value that is not a mapping, naming it', () => {
    expect(() => applyOverrides(TEMPLATE, { 'name.x': 1 })).toThrow(/override name\.x: name is not a mapping/)
  })
  it('cuts a template to the claims\' points, the first seed and fewer flows', () => {
    const points = pointsOf([{ scheme: 'hula', load: 0.7 }, { scheme: 'ecmp', load: 0.7 }, { scheme: 'hula', load: 0.3 }], ['ecmp', 'conga', 'hula'])
    expect(points).toEqual({ schemes: ['ecmp', 'hula'], loads: [0.3, 0.7] })
    const doc = parseDocument(sweepText(TEMPLATE, points, { maxFlows: 300 }, 't-sweep')).toJS()
    expect(doc).toMatchObject({ name: 't-sweep', schemes: ['ecmp', 'hula'], seeds: [4], workload: { load: [0.3, 0.7], flows: 300 } })
    // A measure over all loads keeps the template's loads.
    expect(pointsOf([{ scheme: 'hula', load: undefined }], ['ecmp', 'hula']).loads).toBeUndefined()
  })
  it('declares, for every template with claims, open settings whose variants are well-formed overrides', () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      expect(Object.keys(CLAIMS), name).toContain(name)
      expect(s.open.length, name).toBeGreaterThan(0)
      for (const o of s.open) {
        expect(o.reason.length, `${name} ${o.path}`).toBeGreaterThan(10)
        for (const v of o.variants) expect(() => applyOverrides(TEMPLATE, { [o.path]: v.value }), `${name} ${o.path}`).not.toThrow()
      }
    }
  })
  it('states each open setting as the template file has it: a variant equal to the file\'s value, its value in the text, or a default when the file has none', () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      const doc = parseDocument(readFileSync(join('resources', 'experiments', `${name}.yaml`), 'utf8')).toJS()
      for (const o of s.open) {
        const own = o.path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], doc) ?? null
        const said =
          o.variants.some((v) => JSON.stringify(v.value) === JSON.stringify(own)) ||
          (typeof own === 'string' || typeof own === 'number' ? o.default.startsWith(String(own)) : own === null && /default|^none/.test(o.default))
        expect(said, `${name} ${o.path}: the file has ${JSON.stringify(own)}, the page would say "${o.default}"`).toBe(true)
      }
    }
  })
})

describe('closingNote', () => {
  it('counts the numeric claims within ±30 % and the figures in the paper\'s order', () => {
    const note = closingNote([
      '| template | claim | paper | ours | ours/paper | within ±30 % | holds |',
      '|---|---|---|---|---|---|---|',
      '| a | k1 | 3.70× | 3.50× | 0.95 | yes | no |',
      '| a | k2 | 2.70× | 1.00× | 0.37 | no | no |',
      '| b | k4 | 1.35× | 1.40× | 1.04 | yes | yes |',
      '| a | k3 | better (qualitative) | 1.20× | — | — (qualitative) | yes |',
      '| a | order of schemes (mean FCT) | hula < ecmp | ecmp < hula | — | — | no |',
    ])
    expect(note).toContain("2 of 3 numeric claims are within ±30 % of the paper's: a: k1; b: k4.")
    // A value inside the band can still fall short of the paper's figure (k1: 3.50× against 3.70×).
    expect(note).toContain("Of these, 1 holds (reaches the paper's figure); 1 falls short of it inside the band.")
    expect(note).toContain('0 of 1 figures rank their schemes as the paper does.')
  })
})

describe('ordersAcrossSweeps', () => {
  const section = (name: string, rows: string[][], o: { orderCol?: boolean; paper?: string } = {}) =>
    [
      `## ${name}`,
      '',
      '| claim | paper | ours |',
      '|---|---|---|',
      '| k | 1.00× | 1.00× |',
      '',
      `Paper: ${o.paper ?? 'A (X 2016)'}. Settings the paper gives: a fabric.`,
      '',
      '### Sensitivity sweep',
      '',
      `| setting | value | a claim (paper: 2.00×)${o.orderCol === false ? '' : ' | order of schemes by mean FCT (paper: hula < ecmp)'} |`,
      `|---|---|---|${o.orderCol === false ? '' : '---|'}`,
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
    ].join('\n')
  const row = (setting: string, value: string, order: string) => [setting, value, '1.00×', order]

  it("tables each paper's figures against their sweep rows, and names a setting that gives every order", () => {
    const body = [
      section('fig-a', [row('(the template)', 'as declared above', 'ecmp ≈ hula, does not match'), row('choice', 'permutation (a \\| b)', 'hula < ecmp, matches')]),
      section('fig-b', [row('(the template)', 'as declared above', 'hula < ecmp, matches'), row('choice', 'permutation (a \\| b)', 'hula < ecmp, matches'), row('buffer', 'shared', 'n/a (no finished hula run)')]),
      // No order column (the sweep did not run the order's points): left out.
      section('fig-c', [['(the template)', 'as declared above', '1.00×']], { orderCol: false }),
      // The only figure of its paper: its own section says it all.
      section('fig-d', [row('(the template)', 'as declared above', 'hula < ecmp, matches')], { paper: 'B (Y 2021)' }),
    ].join('\n')
    const out = ordersAcrossSweeps(body).join('\n')
    expect(out).toMatch(/^A \(X 2016\): the order of schemes in each figure's sensitivity sweep/)
    expect(out).toContain('| setting | fig-a | fig-b |')
    expect(out).toContain('| (the template) | no | yes |')
    expect(out).toContain('| choice: permutation (a \\| b) | yes | yes |')
    expect(out).toContain('| buffer: shared | — | no |')
    expect(out).toContain('Each of these 2 figures ranks its schemes as the paper does under choice: permutation (a \\| b).')
    expect(out).not.toContain('fig-d')
  })

  it('names the closest settings and the figures they lose when none gives every order, and is empty without order columns', () => {
    const body = [
      section('fig-a', [row('(the template)', 'as declared above', 'ecmp ≈ hula, does not match'), row('choice', 'permutation', 'hula < ecmp, matches'), row('rto', '200ms', 'ecmp < hula, does not match')]),
      section('fig-b', [row('(the template)', 'as declared above', 'hula < ecmp, matches'), row('choice', 'permutation', 'ecmp < hula, does not match'), row('rto', '200ms', 'ecmp < hula, does not match')]),
    ].join('\n')
    expect(ordersAcrossSweeps(body).join('\n')).toContain("No single setting gives all 2 figures the paper's order; the closest, (the template); choice: permutation, each lose one: fig-a; fig-b.")
    expect(ordersAcrossSweeps(section('fig-c', [['(the template)', 'as declared above', '1.00×']], { orderCol: false }))).toEqual([])
    // The closing note carries it after the counts.
    expect(closingNote([], body)).toMatch(/0 figures rank their schemes as the paper does\.\n\nA \(X 2016\): the order of schemes/)
  })
})
