// What every GUI test shares: Debian's Chromium through playwright-core, where screenshots go,
// and contract calls over the app's WebSocket bridge made as the UI makes them.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import WebSocket from 'ws'
import { ROOT } from './start'

/** Screenshots the GUI tests keep (look at them). */
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'e2e')

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Headless /usr/bin/chromium, and the artifacts folder made. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true })
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
}

/** The token in the URL `npm start` printed (`/?token=...`). */
export function tokenOf(url: string): string {
  const u = new URL(url)
  const token = u.searchParams.get('token') ?? new URLSearchParams(u.hash.slice(1)).get('token')
  if (!token) throw new Error(`no token in ${url}`)
  return token
}

/** One contract call over the app's WebSocket bridge (the URL `npm start` printed, with its token). */
export async function contract(url: string, method: string, params: unknown): Promise<any> {
  const u = new URL(url)
  const token = tokenOf(url)
  const ws = new WebSocket(`ws://${u.host}/ws?token=${encodeURIComponent(token)}`, { headers: { origin: u.origin } })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  try {
    const msg = await new Promise<any>((resolve) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data))
        if (m.type === 'result' && m.id === 1) resolve(m)
      })
      ws.send(JSON.stringify({ type: 'call', id: 1, method, params }))
    })
    if (!msg.ok) throw new Error(`${method}: ${msg.error.message}`)
    return msg.result
  } finally {
    ws.close()
  }
}
