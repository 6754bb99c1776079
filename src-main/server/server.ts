// Web mode: the built renderer over HTTP plus the contract over a WebSocket, both on
// 127.0.0.1 only. A random token gates everything, page included: the printed URL carries
// it once and it becomes a cookie for this port (http.ts). Every request is answered inside
// a catch, with the security headers, and only when its Host is the address served, so a
// bad request cannot stop the server (and with it every run in flight) and a rebound DNS
// name cannot reach it.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import { EVENT_NAMES, type EventName } from '../contract'
import type { Core } from '../core'
import { createDispatch } from '../core'
import { routeArchive } from './archive-http'
import { decodePath, enterWithToken, hasToken, hostAllowed, originAllowed, refuseWithoutToken, sendText, serveStatic } from './http'

export interface BridgeServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
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
  const port = () => (http.address() as AddressInfo).port

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, port())) {
      sendText(res, 421, `this server answers only to 127.0.0.1:${port()} and localhost:${port()}, not ${JSON.stringify(req.headers.host ?? '')}`)
      return
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const path = decodePath(url.pathname)
    if (path === null) {
      sendText(res, 400, 'bad request: the path is not valid percent-encoding')
      return
    }
    if (!hasToken(req, url, token, port())) {
      refuseWithoutToken(res)
      return
    }
    if (url.searchParams.has('token') && path === '/' && req.method === 'GET') {
      enterWithToken(res, token, port())
      return
    }
    // An upload changes the database: only from the page this server served.
    if (req.method === 'POST' && !originAllowed(req.headers.origin, port())) {
      sendText(res, 403, 'uploads are accepted only from the p4lab page itself')
      return
    }
    if (await routeArchive(core, req, url, path, res)) return
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendText(res, 405, 'method not allowed', { allow: 'GET, HEAD' })
      return
    }
    serveStatic(opts.rendererDir, path, res)
  }

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('p4lab: internal error answering', req.method, JSON.stringify(req.url), err)
      try {
        sendText(res, 500, 'internal error; the server goes on (see its output)')
      } catch {
        res.destroy()
      }
    })
  })
  http.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
    else socket.destroy()
  })
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })

  http.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy())
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      const origin = req.headers.origin
      const ok =
        hostAllowed(req.headers.host, port()) &&
        url.pathname === '/ws' &&
        (origin === undefined || originAllowed(origin, port())) &&
        hasToken(req, url, token, port())
      if (!ok) {
        socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
        return
      }
      wss.handleUpgrade(req, socket, head, (ws) => attach(ws))
    } catch (err) {
      console.error('p4lab: internal error on a socket upgrade:', err)
      socket.destroy()
    }
  })
  const attach = (ws: WebSocket) => {
    const subscribed = new Set<EventName>()
    const unsubscribe = core.bus.subscribe((event, payload) => {
      if (subscribed.has(event) && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'event', event, payload }))
    })
    ws.on('close', unsubscribe)
    // A bad frame (oversized, invalid UTF-8) is an 'error' on this socket; unheard, it would end the process.
    ws.on('error', () => ws.terminate())
    ws.on('message', (data) => {
      onMessage(data).catch((err: unknown) => {
        console.error('p4lab: internal error on a socket message:', err)
        ws.terminate()
      })
    })
    const onMessage = async (data: unknown) => {
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
    }
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(opts.port, '127.0.0.1', () => resolve())
  })
  const bound = port()
  return {
    port: bound,
    token,
    url: `http://127.0.0.1:${bound}/?token=${token}`,
    close: async () => {
      for (const c of wss.clients) c.terminate()
      await new Promise<void>((r) => wss.close(() => r()))
      await new Promise<void>((r) => http.close(() => r()))
    },
  }
}
