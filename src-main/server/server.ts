// Web mode: the built renderer over HTTP plus the contract over a WebSocket, both on
// 127.0.0.1 only. A random token in the page URL's fragment gates the socket, so other
// local users and web pages cannot drive the core.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import { EVENT_NAMES, type EventName } from '../contract'
import type { Core } from '../core'
import { createDispatch } from '../core'

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "connect-src 'self' ws://127.0.0.1:*; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
}

export interface BridgeServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname)
  const file = normalize(join(root, rel))
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
    return
  }
  res.writeHead(200, {
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  })
  createReadStream(file).pipe(res)
}

export async function startServer(
  core: Core,
  opts: { port: number; rendererDir: string; token?: string },
): Promise<BridgeServer> {
  if (!existsSync(join(opts.rendererDir, 'index.html'))) {
    throw new Error(`the UI is not built (${opts.rendererDir}/index.html is missing): run 'npm run build'`)
  }
  const token = opts.token ?? randomBytes(24).toString('base64url')
  const dispatch = createDispatch(core.handlers, (err) => console.error('p4lab: internal error:', err))
  const http: Server = createServer((req, res) => serveStatic(opts.rendererDir, req, res))
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })

  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const origin = req.headers.origin
    const port = (http.address() as AddressInfo).port
    const originOk = !origin || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`
    if (url.pathname !== '/ws' || !originOk || !sameToken(url.searchParams.get('token') ?? '', token)) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => attach(ws))
  })

  const attach = (ws: WebSocket) => {
    const subscribed = new Set<EventName>()
    const unsubscribe = core.bus.subscribe((event, payload) => {
      if (subscribed.has(event) && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'event', event, payload }))
    })
    ws.on('close', unsubscribe)
    ws.on('message', async (data) => {
      let msg: { type?: unknown; id?: unknown; method?: unknown; params?: unknown; events?: unknown }
      try {
        msg = JSON.parse(String(data))
      } catch {
        ws.send(JSON.stringify({ type: 'error', message: 'message is not JSON' }))
        return
      }
      if (msg.type === 'subscribe' && Array.isArray(msg.events)) {
        for (const e of msg.events) if ((EVENT_NAMES as readonly unknown[]).includes(e)) subscribed.add(e as EventName)
        return
      }
      if (msg.type === 'call' && typeof msg.id === 'number' && typeof msg.method === 'string') {
        const envelope = await dispatch(msg.method, msg.params)
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id: msg.id, ...envelope }))
        return
      }
      ws.send(JSON.stringify({ type: 'error', message: "expected {type:'call',id,method,params} or {type:'subscribe',events}" }))
    })
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(opts.port, '127.0.0.1', () => resolve())
  })
  const port = (http.address() as AddressInfo).port
  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    close: async () => {
      for (const c of wss.clients) c.terminate()
      await new Promise<void>((r) => wss.close(() => r()))
      await new Promise<void>((r) => http.close(() => r()))
    },
  }
}
