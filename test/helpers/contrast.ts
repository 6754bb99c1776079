// WCAG 2 contrast of what a page shows: every visible piece of text (text nodes, and the values
// of inputs and selects) against its effective background: the background colours of the
// element and its ancestors composited from the page up (alpha and opacity included), the text's
// colour composited over that. Body text needs 4.5:1, large text (24px, or 18.66px bold) 3:1;
// disabled controls are exempt, as WCAG exempts inactive components. Graph labels drawn on a
// canvas are measured from the pairs the graph reports in `data-palette` (3:1, as for large text
// and graphics).
import type { Page } from 'playwright-core'

export interface LowContrast {
  /** The element: its data-testid or tag and class, and the nearest ancestor's data-testid. */
  where: string
  text: string
  fg: string
  bg: string
  ratio: number
  need: number
}

type Rgba = [number, number, number, number]
// `measure` runs in the page; the node side's types know no DOM, so these are named loosely here.
type Element = any
declare const document: any
declare const NodeFilter: any
declare function getComputedStyle(el: Element): any

/** Runs in the page: the low-contrast texts under `selector` (every match). */
function measure(args: { selector: string; exclude: string[] }): LowContrast[] {
  /** A computed colour: rgb()/rgba(), or color(srgb ...) as Chromium gives a color-mix(); null for one it cannot read. */
  const parse = (c: string): Rgba | null => {
    const m = /^rgba?\(([^)]+)\)$/.exec(c)
    if (m) {
      const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number)
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]
    }
    const s = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)$/.exec(c)
    if (s) return [Number(s[1]) * 255, Number(s[2]) * 255, Number(s[3]) * 255, s[4] === undefined ? 1 : Number(s[4])]
    return null
  }
  const unread = new Set<string>()
  const over = (top: Rgba, under: Rgba): Rgba => {
    const a = top[3] + under[3] * (1 - top[3])
    if (a === 0) return [0, 0, 0, 0]
    const ch = (i: number) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a
    return [ch(0), ch(1), ch(2), a]
  }
  const lum = (c: Rgba) => {
    const f = (v: number) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    }
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
  }
  const ratio = (a: Rgba, b: Rgba) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p)
    return (x + 0.05) / (y + 0.05)
  }
  const hex = (c: Rgba) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')
  /** The background an element's text sits on, and the opacity its subtree is drawn with. */
  const backdrop = (el: Element): { bg: Rgba; opacity: number } => {
    const layers: Rgba[] = []
    let opacity = 1
    for (let e: Element | null = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e)
      opacity *= Number(cs.opacity)
      const c = parse(cs.backgroundColor)
      if (!c) unread.add(cs.backgroundColor)
      if (c && c[3] > 0) {
        layers.push(c)
        if (c[3] >= 1) break
      }
    }
    let bg: Rgba = [255, 255, 255, 1] // the canvas, under everything
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg)
    return { bg, opacity }
  }
  const visible = (el: Element) => {
    const r = el.getBoundingClientRect()
    if (r.width < 1 || r.height < 1) return false
    const cs = getComputedStyle(el)
    return cs.visibility === 'visible' && cs.display !== 'none'
  }
  const where = (el: Element) => {
    const own = el.getAttribute('data-testid') ?? `${el.tagName.toLowerCase()}${el.classList.length ? '.' + [...el.classList].join('.') : ''}`
    const up = el.parentElement?.closest('[data-testid]')?.getAttribute('data-testid')
    return up ? `${up} > ${own}` : own
  }
  const out: LowContrast[] = []
  const seen = new Set<Element>()
  const check = (el: Element, text: string) => {
    if (seen.has(el) || !visible(el)) return
    seen.add(el)
    if (el.closest(':disabled, [aria-disabled="true"], [inert]')) return
    // The label of a disabled control is part of that inactive control.
    if (el.closest('label')?.querySelector(':disabled')) return
    if (args.exclude.some((x) => el.closest(x))) return
    const cs = getComputedStyle(el)
    const fg0 = parse(cs.color)
    if (!fg0) {
      unread.add(cs.color)
      return
    }
    const { bg, opacity } = backdrop(el)
    const fg = over([fg0[0], fg0[1], fg0[2], fg0[3] * opacity], bg)
    const size = parseFloat(cs.fontSize)
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700)
    const need = large ? 3 : 4.5
    const r = ratio(fg, bg)
    if (r < need) out.push({ where: where(el), text: text.trim().slice(0, 60), fg: hex(fg), bg: hex(bg), ratio: Math.round(r * 100) / 100, need })
  }
  for (const root of document.querySelectorAll(args.selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.textContent?.trim() && n.parentElement && !n.parentElement.closest('option, script, style')) check(n.parentElement, n.textContent)
    }
    // Controls that show their value as text (a range, a checkbox or a colour show none).
    for (const el of root.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=file]):not([type=range]):not([type=color]), select, textarea')) {
      const v = el.tagName === 'SELECT' ? (el.selectedOptions[0]?.text ?? '') : (el.value as string)
      if (v.trim()) check(el, v)
    }
  }
  // A colour the measure cannot read is a failure, not a pass.
  for (const c of unread) out.push({ where: 'colour format', text: `cannot read ${c}`, fg: c, bg: '', ratio: 0, need: 4.5 })
  return out
}

/** The texts under `selector` below their WCAG contrast, as the page is drawn now. */
export function lowContrast(page: Page, selector: string, exclude: string[] = []): Promise<LowContrast[]> {
  return page.evaluate(measure, { selector, exclude })
}

/** Graph labels below 3:1 against what they are drawn on, from the graphs' `data-palette` (`[{what, fg, bg}]`). */
export async function lowGraphContrast(page: Page, selector: string): Promise<LowContrast[]> {
  const palettes = await page.locator(selector).evaluateAll((els) => els.map((e) => [e.getAttribute('data-testid') ?? '', e.getAttribute('data-palette') ?? '']))
  const out: LowContrast[] = []
  for (const [id, text] of palettes) {
    if (!text) throw new Error(`${id}: no data-palette to measure its labels by`)
    for (const p of JSON.parse(text) as Array<{ what: string; fg: string; bg: string }>) {
      const r = contrastRatio(p.fg, p.bg)
      if (r < 3) out.push({ where: `${id} ${p.what}`, text: p.what, fg: p.fg, bg: p.bg, ratio: Math.round(r * 100) / 100, need: 3 })
    }
  }
  return out
}

/** WCAG contrast ratio of two CSS colours written #rgb, #rrggbb or rgb(...). */
export function contrastRatio(a: string, b: string): number {
  const rgb = (c: string): number[] => {
    const h = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(c.trim())
    if (h) {
      const s = h[1].length === 3 ? [...h[1]].map((x) => x + x).join('') : h[1]
      return [0, 2, 4].map((i) => parseInt(s.slice(i, i + 2), 16))
    }
    const m = /rgba?\(([^)]+)\)/.exec(c)
    if (!m) throw new Error(`not a colour: ${c}`)
    return m[1].split(/[\s,/]+/).filter(Boolean).slice(0, 3).map(Number)
  }
  const lum = (c: number[]) => {
    const f = (v: number) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    }
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
  }
  const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p)
  return (x + 0.05) / (y + 0.05)
}
