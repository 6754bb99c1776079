// The HTTP side of web mode: the headers every answer carries, the Host check against DNS
// rebinding, the token gate (the printed URL's token becomes a cookie for this port), and
// the built renderer as static files. Nothing here throws out of a request: server.ts
// wraps every request, and a path that does not decode is a 400.
import { timingSafeEqual } from 'node:crypto'
import { createReadStream, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'"

/** On every response, errors and redirects included. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Answers with the security headers and a short text body (errors, refusals). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers })
  res.end(text.endsWith('\n') ? text : text + '\n')
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

/** The names this server answers to: what it listens on. Anything else is a rebinding attempt or a mistake. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`
}

/** Origins allowed to open the socket or post an upload: the page this server served. */
export function originAllowed(origin: string | undefined, port: number): boolean {
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`
}

/** Cookies are per host, not per port: the name carries the port, so two servers never share one. */
export function cookieName(port: number): string {
  return `p4lab-${port}`
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/** The request carries the token: as this port's cookie, or as `?token=` (the printed URL, the socket). */
export function hasToken(req: IncomingMessage, url: URL, token: string, port: number): boolean {
  const fromQuery = url.searchParams.get('token')
  if (fromQuery !== null && sameToken(fromQuery, token)) return true
  const fromCookie = cookieOf(req, cookieName(port))
  return fromCookie !== null && sameToken(fromCookie, token)
}

/**
 * The printed URL `/?token=T`: sets the cookie the page's assets and uploads are checked by
 * (HttpOnly, same-site only) and redirects to the app with the token in the fragment, where
 * the renderer takes it for its socket and clears it from the address bar.
 */
export function enterWithToken(res: ServerResponse, token: string, port: number): void {
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'set-cookie': `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`,
    location: `/#token=${token}`,
  })
  res.end()
}

const NO_TOKEN =
  'This p4lab server only answers browsers that know its token.\n' +
  'Open the URL that `p4lab serve` (or `npm start`) printed, http://127.0.0.1:PORT/?token=...\n'

export function refuseWithoutToken(res: ServerResponse): void {
  sendText(res, 401, NO_TOKEN)
}

/** Decodes a request path; null when it is not valid percent-encoding (answered 400). */
export function decodePath(pathname: string): string | null {
  try {
    const p = decodeURIComponent(pathname)
    return p.includes('\0') ? null : p
  } catch {
    return null
  }
}

export function serveStatic(root: string, path: string, res: ServerResponse): void {
  const file = normalize(join(root, path === '/' ? '/index.html' : path))
  let isFile: boolean
  try {
    isFile = file.startsWith(root + sep) && statSync(file).isFile()
  } catch {
    isFile = false
  }
  if (!isFile) {
    sendText(res, 404, 'not found')
    return
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
  })
  const stream = createReadStream(file)
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}
