// `p4lab serve` against hostile requests, as a real process: a path that does not decode
// must not end it (every run in flight would be cut off), every answer carries the security
// headers (errors too), a Host other than the address served is refused (DNS rebinding),
// and nothing, the page included, is served without the token.
import { request } from 'node:http'
import { connect } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { tokenOf } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** A raw HTTP request: fetch would normalise the path and refuses to set Host. */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Bytes on a socket, for requests no client library would send. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(text))
    let out = ''
    s.setEncoding('utf8')
    s.on('data', (d) => (out += d))
    s.on('end', () => resolve(out))
    s.on('error', reject)
  })
}

function expectSecurityHeaders(a: Answer): void {
  expect(a.headers['content-security-policy']).toMatch(/default-src 'self'/)
  expect(a.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/)
  expect(a.headers['x-content-type-options']).toBe('nosniff')
  expect(a.headers['referrer-policy']).toBe('no-referrer')
}

function upgrade(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers })
    ws.once('open', () => {
      ws.close()
      resolve('open')
    })
    ws.once('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`))
    ws.once('error', (err) => resolve(`error ${err.message}`))
  })
}

describe('p4lab serve under hostile requests', () => {
  let app: Started
  let port: number
  let token: string
  let cookie: string

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-serve-hard-')), P4LAB_WEB: '1' })
    const u = new URL(app.url)
    port = Number(u.port)
    token = tokenOf(app.url)
    cookie = `p4lab-${port}=${token}`
  }, 90_000)
  afterAll(async () => {
    await app?.stop()
  })

  it('answers GET /% with 400 and goes on serving', async () => {
    const bad = await get(port, '/%', { cookie })
    expect(bad.status).toBe(400)
    expectSecurityHeaders(bad)
    const bad2 = await get(port, '/assets/%E0%A4%A', { cookie })
    expect(bad2.status).toBe(400)
    // Still alive, and still serving the page.
    expect(app.child.exitCode).toBeNull()
    const page = await get(port, '/', { cookie })
    expect(page.status).toBe(200)
    expect(page.body).toContain('<div id="app">')
  })

  it('puts CSP, nosniff, no-referrer and frame-ancestors on a 404 and on a refusal', async () => {
    const missing = await get(port, '/no-such-file.js', { cookie })
    expect(missing.status).toBe(404)
    expectSecurityHeaders(missing)
    const noToken = await get(port, '/no-such-file.js')
    expect(noToken.status).toBe(401)
    expectSecurityHeaders(noToken)
    const post = await get(port, '/', { cookie }, 'POST')
    expect(post.status).toBe(403)
    expectSecurityHeaders(post)
  })

  it('refuses a Host other than the address served, for the page and the socket', async () => {
    const rebound = await get(port, `/?token=${token}`, { host: `attacker.example:${port}` })
    expect(rebound.status).toBe(421)
    expectSecurityHeaders(rebound)
    expect(rebound.body).not.toContain('<div id="app">')
    // HTTP/1.0 without any Host at all.
    const noHost = await raw(port, `GET /?token=${token} HTTP/1.0\r\n\r\n`)
    expect(noHost).toMatch(/^HTTP\/1\.1 421 /)
    expect(await upgrade(port, `/ws?token=${token}`, { host: `attacker.example:${port}` })).toBe('HTTP 403')
    // The same request with the right Host works: the refusal is the Host's doing.
    expect(await upgrade(port, `/ws?token=${token}`, { host: `127.0.0.1:${port}` })).toBe('open')
    expect(await upgrade(port, `/ws?token=${token}`, { host: `localhost:${port}` })).toBe('open')
  })

  it('serves the page only with the token: the printed URL sets a cookie for this port', async () => {
    const bare = await get(port, '/')
    expect(bare.status).toBe(401)
    expect(bare.body).not.toContain('<div id="app">')
    expect(bare.body).toMatch(/token/)
    expect((await get(port, '/', { cookie: `p4lab-${port}=wrong` })).status).toBe(401)
    // Another server's cookie (another port) does not open this one.
    expect((await get(port, '/', { cookie: `p4lab-${port + 1}=${token}` })).status).toBe(401)
    const enter = await get(port, `/?token=${token}`)
    expect(enter.status).toBe(303)
    expectSecurityHeaders(enter)
    const set = String(enter.headers['set-cookie'])
    expect(set).toContain(`p4lab-${port}=${token}`)
    expect(set).toMatch(/HttpOnly/)
    expect(set).toMatch(/SameSite=Strict/)
    const page = await get(port, '/', { cookie: set.split(';')[0] })
    expect(page.status).toBe(200)
    expectSecurityHeaders(page)
    // The socket without the token or cookie stays shut.
    expect(await upgrade(port, '/ws', {})).toBe('HTTP 403')
  })
})
