// The WebSocket binding of the contract: token and origin checks, request validation,
// and a run streamed end to end to a subscribed client.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { methods } from '../../src-main/contract'
import { startServer, type BridgeServer } from '../../src-main/server/server'
import type { Core } from '../../src-main/core'
import { ROOT } from '../helpers/start'
import { TINY_YAML, tempCore } from '../helpers/core'

function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
}

class Client {
  private next = 1
  private pending = new Map<number, (msg: unknown) => void>()
  readonly events: Array<{ event: string; payload: any }> = []
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data))
      if (msg.type === 'result') this.pending.get(msg.id)?.(msg)
      else if (msg.type === 'event') this.events.push(msg)
    })
  }
  call(method: string, params: unknown): Promise<any> {
    const id = this.next++
    this.ws.send(JSON.stringify({ type: 'call', id, method, params }))
    return new Promise((resolve) => this.pending.set(id, resolve))
  }
}

describe('WebSocket bridge', () => {
  let core: Core
  let server: BridgeServer
  let wsUrl: string

  beforeAll(async () => {
    core = tempCore().core
    core.start()
    server = await startServer(core, { port: 0, rendererDir: join(ROOT, 'out', 'renderer') })
    wsUrl = `ws://127.0.0.1:${server.port}/ws`
  })
  afterAll(async () => {
    await server.close()
    core.opts.store.close()
  })

  it('serves the UI with a CSP, on 127.0.0.1 only', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=.{20,}/)
    const cookie = `p4lab-${server.port}=${server.token}`
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { cookie } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect((await fetch(`http://127.0.0.1:${server.port}/../package.json`, { headers: { cookie } })).status).toBe(404)
    expect((await fetch(`http://127.0.0.1:${server.port}/%2e%2e/package.json`, { headers: { cookie } })).status).toBe(404)
  })

  it('refuses a socket without the token, with a wrong token, or from another origin', async () => {
    await expect(connect(wsUrl)).rejects.toThrow(/403/)
    await expect(connect(`${wsUrl}?token=nope`)).rejects.toThrow(/403/)
    await expect(
      connect(`${wsUrl}?token=${server.token}`, { origin: 'http://evil.example' }),
    ).rejects.toThrow(/403/)
  })

  it('validates every request against the contract', async () => {
    const c = new Client(await connect(`${wsUrl}?token=${server.token}`))
    const unknown = await c.call('runs.delete', {})
    expect(unknown.ok).toBe(false)
    expect(unknown.error.code).toBe('invalid-request')
    const bad = await c.call('runs.get', { id: 'seven' })
    expect(bad.ok).toBe(false)
    expect(bad.error.message).toMatch(/id/)
    const missing = await c.call('runs.get', { id: 12345 })
    expect(missing.error.code).toBe('not-found')
    const invalid = await c.call('experiments.create', { yaml: 'name: x\nschemes: [ecmp]\n' })
    expect(invalid.ok).toBe(false)
    expect(invalid.error.code).toBe('invalid-spec')
    expect(invalid.error.specErrors.length).toBeGreaterThan(0)
    c.ws.close()
  })

  it('sends series sampled at their own instants with null where one has no sample, as the contract says', async () => {
    const store = core.opts.store
    const yaml = TINY_YAML.replace('name: tiny', 'name: gaps')
    const exp = store.createExperiment({ name: 'gaps', yaml, spec: core.parseOrThrow(yaml, 'gaps.yaml'), file: null, tags: [] })
    const [run] = store.createRuns(exp.id, 'sim', 'test:1', [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    const [a, b] = store.defineSeries(run.id, [
      { kind: 'int.hopLatency', entity: { switch: 'a' }, unit: 'ns' },
      { kind: 'int.hopLatency', entity: { switch: 'b' }, unit: 'ns' },
    ])
    store.insertSamples([a], [1000, 3000], [5, 7])
    store.insertSamples([b], [2000], [9])
    const c = new Client(await connect(`${wsUrl}?token=${server.token}`))
    const stored = await c.call('runs.series', { id: run.id })
    expect(stored.ok).toBe(true)
    expect(stored.result.batch).toEqual({ t: [1000, 2000, 3000], values: [[5, null, 7], [null, 9, null]] })
    // What the renderer's client checks every answer against.
    expect(methods['runs.series'].res.safeParse(stored.result).success).toBe(true)
    // The defs alone, as a view joining a live run asks for them.
    const defs = await c.call('runs.seriesDefs', { id: run.id })
    expect(defs.result).toEqual(stored.result.defs)
    expect(defs.result.map((d: { id: number }) => d.id)).toEqual([a, b])
    expect((await c.call('runs.seriesDefs', { id: 9999 })).error.code).toBe('not-found')
    c.ws.close()
  })

  it('runs an experiment and streams status, series and telemetry to a subscriber', async () => {
    const c = new Client(await connect(`${wsUrl}?token=${server.token}`))
    c.ws.send(JSON.stringify({ type: 'subscribe', events: ['run.status', 'run.series', 'run.telemetry', 'run.progress'] }))
    const valid = await c.call('experiments.validate', { yaml: TINY_YAML })
    expect(valid.result).toEqual({ ok: true, errors: [], runCount: 4 })
    const created = await c.call('experiments.create', { yaml: TINY_YAML })
    expect(created.ok).toBe(true)
    const started = await c.call('experiments.run', { id: created.result.id })
    const runIds: number[] = started.result.runIds
    expect(runIds).toHaveLength(4)
    await core.orchestrator.wait(runIds)
    await new Promise((r) => setTimeout(r, 50))

    const statuses = c.events.filter((e) => e.event === 'run.status' && e.payload.runId === runIds[0]).map((e) => e.payload.status)
    expect(statuses).toEqual(['queued', 'deploying', 'running', 'collecting', 'done'])
    const series = c.events.find((e) => e.event === 'run.series' && e.payload.runId === runIds[0])
    expect(series?.payload.defs.map((d: { kind: string }) => d.kind)).toContain('link.util')
    const points = c.events
      .filter((e) => e.event === 'run.telemetry' && e.payload.runId === runIds[0])
      .reduce((n, e) => n + e.payload.batch.t.length, 0)
    expect(points).toBeGreaterThan(0)

    const run = await c.call('runs.get', { id: runIds[0] })
    expect(run.result.status).toBe('done')
    expect(run.result.stats.finished).toBe(30)
    const stored = await c.call('runs.series', { id: runIds[0], kinds: ['queue.depth'] })
    expect(stored.result.defs.every((d: { kind: string }) => d.kind === 'queue.depth')).toBe(true)
    expect(stored.result.batch.t.length).toBe(points)
    c.ws.close()
  })
})
