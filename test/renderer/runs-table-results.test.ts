// The runs table when a run ends (issue 17): its status and its results reach the table at
// different times, and a finished run's FCT cells must never say "—" (no data) meanwhile.
// The runs store gets its events from a stand-in client; RunsTable.vue is rendered to HTML by
// Vue's server renderer from that store; the table's compare.runs records are set by the test.
import { createPinia, setActivePinia, type Pinia } from 'pinia'
import { createSSRApp, h, shallowRef } from 'vue'
import { renderToString } from 'vue/server-renderer'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { EventPayload, Run, RunRecords } from '@contract/index'

const handlers = new Map<string, (p: unknown) => void>()
const answers: Record<string, (p: unknown) => unknown> = {}
vi.mock('../../src-renderer/src/client', () => ({
  on: (event: string, cb: (p: unknown) => void) => {
    handlers.set(event, cb)
    return () => handlers.delete(event)
  },
  call: async (method: string, params: unknown) => {
    const a = answers[method]
    if (!a) throw new Error(`no answer for ${method}`)
    return a(params)
  },
  errorMessage: (e: unknown) => String(e),
}))

// The records compare.runs gave the table, as the test sets them (the real composable fetches them).
const records = shallowRef<RunRecords | null>(null)
vi.mock('../../src-renderer/src/composables/useRunRecords', () => ({
  useRunRecords: () => ({ records, matched: shallowRef(null), problem: shallowRef(null), error: shallowRef(null), loading: shallowRef(false), refresh: async () => {} }),
}))

const memory = new Map<string, string>()
Object.defineProperty(globalThis, 'localStorage', {
  configurable: true,
  value: { getItem: (k: string) => memory.get(k) ?? null, setItem: (k: string, v: string) => void memory.set(k, v) },
})

const { useRunsStore } = await import('../../src-renderer/src/stores/runs')
// main.ts registers it for the app; the client is a stand-in here, its errors module is not.
const { vErrorDetail } = await import('../../src-renderer/src/client/errors')
const RunsTable = (await import('../../src-renderer/src/components/RunsTable.vue')).default

const EXP = 7
const STATS = { flows: 600, finished: 600, meanNs: 1_250_000, p50Ns: 300_000, p99Ns: 9_000_000, smallMeanNs: 200_000, largeMeanNs: 40_000_000 }
const FCT_COLS = ['meanFct', 'p50Fct', 'p99Fct', 'smallMeanFct', 'largeMeanFct']

function run(status: Run['status'], over: Partial<Run> = {}): Run {
  return {
    id: 3, experimentId: EXP, experimentName: 'quickstart', target: 'sim', scheme: 'ecmp', load: 0.3, seed: 1, params: {},
    status, createdAt: '2026-11-21T00:00:00.000Z', startedAt: '2026-11-21T00:00:01.000Z', finishedAt: null, error: null, stats: null, counters: null, completion: null, revision: 1, stale: false, tags: [], notes: '', setAside: null,
    ...over,
  }
}

function statusEvent(r: Run): EventPayload<'run.status'> {
  return { runId: r.id, experimentId: r.experimentId, status: r.status, error: r.error, at: '2026-11-21T00:00:02.000Z', run: r }
}

/** compare.runs' record of the run as it was stored with `status` (metrics only once it is done). */
function recordOf(status: Run['status'], metrics: Record<string, number> = {}): RunRecords {
  const fields = { id: 3, experiment: 'quickstart', target: 'sim', scheme: 'ecmp', load: 0.3, seed: 1, status, flows: 600, ...metrics }
  const metricNames = ['mean', 'p50', 'p99', 'small.mean', 'large.mean', 'small.p99']
  return {
    query: '',
    // Every field a query may name, metrics included, whether this run has a value or not (as compare.runs lists them).
    fields: [...['id', 'experiment', 'target', 'scheme', 'load', 'seed', 'status'].map((name) => ({ name, group: 'run' as const })), { name: 'flows', group: 'spec' as const }, ...metricNames.map((name) => ({ name, group: 'metric' as const }))],
    runs: [{ id: 3, experimentId: EXP, tags: [], fields }],
    differences: [],
  }
}

/** The run row's cells as rendered: data-col → text. */
async function renderRow(pinia: Pinia): Promise<Map<string, string>> {
  const store = useRunsStore(pinia)
  const app = createSSRApp({
    render: () => h(RunsTable, { experimentId: EXP, runs: store.runs, progress: store.progress, shownRunId: null, selectedRunId: null }),
  })
    .use(pinia)
    .directive('error-detail', vErrorDetail)
  const html = await renderToString(app)
  const row = /<tr[^>]*data-testid="run-row"[^>]*>([\s\S]*?)<\/tr>/.exec(html)
  expect(row, 'a run row').not.toBeNull()
  const cells = new Map<string, string>()
  for (const m of row![1].matchAll(/<td[^>]*data-col="([^"]+)"[^>]*>([\s\S]*?)<\/td>/g)) cells.set(m[1], m[2].replace(/<[^>]+>/g, '').replace(/<!--.*?-->/g, '').trim())
  return cells
}

let pinia: Pinia
beforeEach(async () => {
  handlers.clear()
  memory.clear()
  // Show one flow-derived metric too: it comes only with a compare.runs record.
  memory.set(`p4lab.runs.columns.${EXP}`, JSON.stringify({ shown: ['id', 'scheme', 'status', 'progress', 'finished', 'mean', 'p50', 'p99', 'small.mean', 'large.mean', 'small.p99'] }))
  pinia = createPinia()
  setActivePinia(pinia)
  answers['runs.list'] = () => [run('running')]
  const store = useRunsStore()
  store.subscribe()
  await store.load(EXP)
  // The table's records were fetched while the run was running: no metrics yet.
  records.value = recordOf('running')
})

describe('a run that ends, in the runs table', () => {
  it('shows "loading", never "—", in the FCT cells of a done run whose statistics have not arrived', async () => {
    handlers.get('run.status')!(statusEvent(run('done', { finishedAt: '2026-11-21T00:00:02.000Z' })))
    let cells = await renderRow(pinia)
    expect(cells.get('status')).toBe('done')
    for (const col of [...FCT_COLS, 'finished', 'small.p99']) expect(cells.get(col), col).toBe('…')

    // The record fetched after the status change brings them.
    records.value = recordOf('done', { mean: STATS.meanNs, p50: STATS.p50Ns, p99: STATS.p99Ns, 'small.mean': STATS.smallMeanNs, 'large.mean': STATS.largeMeanNs, 'small.p99': 700_000 })
    cells = await renderRow(pinia)
    for (const col of [...FCT_COLS, 'small.p99']) expect(cells.get(col), col).toMatch(/\d/)
    expect(cells.get('meanFct')).toBe('1.25 ms')
  })

  it('shows the statistics that come with the done status at once, and "loading" only where the record is still due', async () => {
    handlers.get('run.status')!(statusEvent(run('done', { stats: STATS, counters: { drops: 4, retransmits: 9 } })))
    let cells = await renderRow(pinia)
    for (const col of FCT_COLS) expect(cells.get(col), col).toMatch(/\d/)
    expect(cells.get('meanFct')).toBe('1.25 ms')
    expect(cells.get('finished')).toBe('600')
    // A flow-derived metric is computed by compare.runs: loading until that record is fetched again.
    expect(cells.get('small.p99')).toBe('…')
    records.value = recordOf('done', { mean: STATS.meanNs, 'small.p99': 700_000 })
    cells = await renderRow(pinia)
    expect(cells.get('small.p99')).toMatch(/\d/)
    for (const col of FCT_COLS) expect(cells.get(col), col).toMatch(/\d/)
  })

  it('shows an incomplete run as incomplete, with its numbers and likely cause, never as done (issue 11)', async () => {
    const completion = { flows: 600, finished: 0, failed: 600, unfinished: 0, unbounded: 0, complete: false, cause: 'the traffic agents reported 600 failed flows (600 × "connect: timed out")' }
    const error = `0 of 600 flows finished (600 failed, 0 unfinished); a run is done when at least 99 % finish. Likely cause: ${completion.cause}`
    const stats = { flows: 600, finished: 0, meanNs: null, p50Ns: null, p99Ns: null, smallMeanNs: null, largeMeanNs: null }
    handlers.get('run.status')!(statusEvent(run('incomplete', { stats, completion, error, counters: { flowsFailed: 600 } })))
    records.value = recordOf('incomplete')
    const html = await renderToString(createSSRApp({ render: () => h(RunsTable, { experimentId: EXP, runs: useRunsStore(pinia).runs, progress: {}, shownRunId: null, selectedRunId: null }) }).use(pinia).directive('error-detail', vErrorDetail))
    expect(html).toMatch(/data-status="incomplete"/)
    expect(html).not.toMatch(/data-status="done"/)
    const cells = await renderRow(pinia)
    expect(cells.get('status')).toBe('incomplete')
    expect(cells.get('progress')).toBe('0 of 600 flows finished (600 failed, 0 unfinished)')
    expect(html).toMatch(/data-testid="run-incomplete" title="0 of 600 flows finished \(600 failed, 0 unfinished\); a run is done when at least 99 % finish\. Likely cause: the traffic agents reported 600 failed flows/)
    // No flow finished: no FCT to show, and its record is in, so "—" (no data) is the truth here.
    for (const col of FCT_COLS) expect(cells.get(col), col).toBe('—')
    expect(cells.get('finished')).toBe('0')
  })

  it('shows a done run\'s few unfinished flows as a count and a share in its progress cell', async () => {
    const completion = { flows: 600, finished: 597, failed: 0, unfinished: 3, unbounded: 0, complete: true, cause: null }
    handlers.get('run.status')!(statusEvent(run('done', { stats: { ...STATS, finished: 597 }, completion })))
    records.value = recordOf('done', { mean: STATS.meanNs })
    const cells = await renderRow(pinia)
    expect(cells.get('status')).toBe('done')
    expect(cells.get('progress')).toBe('3 unfinished (0.50 % of the flows)')
  })

  it('keeps "—" for a run that ended without results', async () => {
    handlers.get('run.status')!(statusEvent(run('failed', { error: 'deploy: no route' })))
    const cells = await renderRow(pinia)
    expect(cells.get('status')).toBe('failed')
    for (const col of FCT_COLS) expect(cells.get(col), col).toBe('—')
  })
})
