// The Electron checklist, checked on the shell's own code: there is no Electron binary here,
// so `electron` is replaced by a recorder and the real main process and preload modules are
// imported against it. What they hand to Electron is what is checked: the window's
// preferences, the CSP on every page, new windows and navigation, permissions, each IPC
// handler's sender check and argument validation, the dialogs archives go through, and
// exactly what the preload exposes.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { IPC_PREFIX, METHOD_NAMES } from '../../src-main/contract/names'
import { ROOT } from '../helpers/start'

type Listener = (...args: any[]) => any

const rec = vi.hoisted(() => ({
  windows: [] as any[],
  ipc: new Map<string, Listener>(),
  app: new Map<string, Listener>(),
  headers: null as Listener | null,
  permission: null as Listener | null,
  permissionCheck: null as Listener | null,
  exposed: new Map<string, any>(),
  invoked: [] as unknown[][],
  external: [] as string[],
  dialogs: { save: null as string | null, open: null as string | null, calls: [] as string[] },
}))

vi.mock('electron', () => {
  class WebContents {
    handlers = new Map<string, Listener[]>()
    openHandler: Listener | null = null
    mainFrame = { url: '' }
    setWindowOpenHandler(fn: Listener) {
      this.openHandler = fn
    }
    on(ev: string, fn: Listener) {
      this.handlers.set(ev, [...(this.handlers.get(ev) ?? []), fn])
      return this
    }
    send() {}
    getType() {
      return 'window'
    }
  }
  class BrowserWindow {
    webContents = new WebContents()
    loaded: string | null = null
    constructor(readonly opts: any) {
      rec.windows.push(this)
    }
    on() {
      return this
    }
    isDestroyed() {
      return false
    }
    async loadFile(file: string) {
      this.loaded = file
      this.webContents.mainFrame.url = pathToFileURL(file).href
    }
    async loadURL(url: string) {
      this.loaded = url
      this.webContents.mainFrame.url = url
    }
  }
  return {
    app: {
      setPath() {},
      getPath: () => tmpdir(),
      whenReady: () => Promise.resolve(),
      on: (ev: string, fn: Listener) => rec.app.set(ev, fn),
      exit() {},
      quit() {},
    },
    BrowserWindow,
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (fn: Listener) => (rec.headers = fn) },
        setPermissionRequestHandler: (fn: Listener) => (rec.permission = fn),
        setPermissionCheckHandler: (fn: Listener) => (rec.permissionCheck = fn),
      },
    },
    shell: { openExternal: async (url: string) => void rec.external.push(url) },
    dialog: {
      showSaveDialog: async (_w: unknown, o: { defaultPath: string }) => {
        rec.dialogs.calls.push(`save ${o.defaultPath}`)
        return rec.dialogs.save ? { canceled: false, filePath: rec.dialogs.save } : { canceled: true, filePath: '' }
      },
      showOpenDialog: async () => {
        rec.dialogs.calls.push('open')
        return rec.dialogs.open ? { canceled: false, filePaths: [rec.dialogs.open] } : { canceled: true, filePaths: [] }
      },
    },
    ipcMain: {
      handle: (ch: string, fn: Listener) => rec.ipc.set(ch, fn),
      removeHandler: (ch: string) => rec.ipc.delete(ch),
    },
    contextBridge: { exposeInMainWorld: (key: string, value: unknown) => rec.exposed.set(key, value) },
    ipcRenderer: {
      invoke: async (...args: unknown[]) => void rec.invoked.push(args),
      on() {},
      removeListener() {},
    },
  }
})

/** The directives of a CSP, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  )
}

function expectStrictCsp(csp: string, where: string): void {
  const d = directives(csp)
  expect(d.get('default-src'), where).toEqual(["'self'"])
  expect(d.get('script-src'), where).toEqual(["'self'"])
  expect(d.get('object-src'), where).toEqual(["'none'"])
  expect(d.get('base-uri'), where).toEqual(["'none'"])
  expect(csp, where).not.toMatch(/unsafe-eval/)
  // No source opens a directive to any host: no bare '*', no whole scheme (loopback sockets only).
  for (const [name, values] of d) for (const v of values) expect(['*', 'http:', 'https:', 'ws:', 'wss:'], `${where}: ${name}`).not.toContain(v)
}

describe('the Electron shell', () => {
  let win: any
  let appUrl: string
  const event = () => ({ prevented: false, preventDefault() { this.prevented = true } })

  beforeAll(async () => {
    process.env.P4LAB_HOME = mkdtempSync(join(tmpdir(), 'p4lab-electron-'))
    delete process.env.ELECTRON_RENDERER_URL
    await import('../../src-main/electron/main')
    await vi.waitFor(() => {
      expect(rec.windows).toHaveLength(1)
      expect(rec.windows[0].loaded).toBeTruthy()
    })
    win = rec.windows[0]
    appUrl = win.webContents.mainFrame.url
  })

  it('runs the renderer isolated and sandboxed, without Node, with web security', () => {
    const p = win.opts.webPreferences
    expect(p).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false })
    expect(p.nodeIntegrationInSubFrames).not.toBe(true)
    expect(p.nodeIntegrationInWorker).not.toBe(true)
    expect(p.preload).toMatch(/preload[\\/]index\.cjs$/)
  })

  it('puts a strict CSP on every page: the header for served pages, the meta of every built page', () => {
    expect(rec.headers).toBeTypeOf('function')
    let out: any
    rec.headers!({ url: 'http://localhost:5173/', responseHeaders: { 'Content-Security-Policy': ["default-src *"] } }, (r: unknown) => (out = r))
    expectStrictCsp(out.responseHeaders['Content-Security-Policy'][0], 'the header')
    expect(directives(out.responseHeaders['Content-Security-Policy'][0]).get('frame-ancestors')).toEqual(["'none'"])
    const built = join(ROOT, 'out', 'renderer')
    const pages = readdirSync(built).filter((f) => f.endsWith('.html'))
    expect(pages.length).toBeGreaterThan(0)
    for (const page of pages) {
      const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(join(built, page), 'utf8'))
      expect(m, page).not.toBeNull()
      expectStrictCsp(m![1], page)
    }
  })

  it('denies every new window (https links go to the browser) and keeps navigation on the app', () => {
    const open = win.webContents.openHandler
    for (const url of ['https://example.org/paper.pdf', 'http://evil.example/', 'file:///etc/passwd', appUrl]) expect(open({ url }), url).toEqual({ action: 'deny' })
    expect(rec.external).toEqual(['https://example.org/paper.pdf'])
    for (const ev of ['will-navigate', 'will-redirect']) {
      const listeners = win.webContents.handlers.get(ev) ?? []
      expect(listeners.length, ev).toBeGreaterThan(0)
      for (const url of ['https://evil.example/', 'file:///etc/passwd', 'http://127.0.0.1:1/']) {
        const e = event()
        for (const l of listeners) l(e, url)
        expect(e.prevented, `${ev} ${url}`).toBe(true)
      }
      const own = event()
      for (const l of listeners) l(own, `${appUrl}#/experiments`)
      expect(own.prevented, `${ev} to the app itself`).toBe(false)
    }
    const attach = event()
    for (const l of win.webContents.handlers.get('will-attach-webview') ?? []) l(attach)
    expect(attach.prevented).toBe(true)
    // Any other web contents gets the same locks.
    const created = rec.app.get('web-contents-created')!
    const other = new win.webContents.constructor()
    other.getType = () => 'webview'
    created({}, other)
    expect(other.openHandler({ url: 'https://x.example/' })).toEqual({ action: 'deny' })
    const e = event()
    for (const l of other.handlers.get('will-navigate')) l(e, appUrl)
    expect(e.prevented).toBe(true)
  })

  it('grants no permission', () => {
    let granted: boolean | null = null
    rec.permission!({}, 'media', (ok: boolean) => (granted = ok))
    expect(granted).toBe(false)
    expect(rec.permissionCheck!({}, 'notifications')).toBe(false)
  })

  it('binds one IPC handler per contract method, each checking its sender frame and validating with the contract', async () => {
    expect([...rec.ipc.keys()].sort()).toEqual(METHOD_NAMES.map((m) => IPC_PREFIX + m).sort())
    const own = { sender: win.webContents, senderFrame: win.webContents.mainFrame }
    const call = (method: string, e: unknown, params: unknown) => rec.ipc.get(IPC_PREFIX + method)!(e, params)

    expect(await call('app.info', own, {})).toMatchObject({ ok: true })
    const strangers = [
      { sender: {}, senderFrame: { url: appUrl } },
      { sender: win.webContents, senderFrame: { url: appUrl } }, // a subframe, not the main frame
      { sender: win.webContents, senderFrame: null },
    ]
    for (const e of strangers) expect(await call('app.info', e, {})).toEqual({ ok: false, error: { code: 'invalid-request', message: 'untrusted sender' } })
    // The main frame navigated elsewhere is not trusted either.
    const away = { sender: win.webContents, senderFrame: { ...win.webContents.mainFrame } }
    win.webContents.mainFrame.url = 'https://evil.example/'
    away.senderFrame = win.webContents.mainFrame
    expect(await call('app.info', away, {})).toMatchObject({ ok: false, error: { message: 'untrusted sender' } })
    win.webContents.mainFrame.url = appUrl

    // Arguments are checked against the contract's schemas before any handler runs.
    expect(await call('runs.get', own, { id: 'seven' })).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    expect(await call('runs.get', own, { id: 1, extra: true })).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    expect(await call('experiments.validate', own, { yaml: 'x', file: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
  })

  it('exports and imports archives through its own dialogs, never a path from the renderer', async () => {
    const own = { sender: win.webContents, senderFrame: win.webContents.mainFrame }
    const call = (method: string, params: unknown) => rec.ipc.get(IPC_PREFIX + method)!(own, params)
    const created = await call('experiments.create', { yaml: 'name: shell\ntestbed: sim\ntopology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 10Gbps }\nschemes: [ecmp]\nworkload: { kind: web-search, load: 0.3, flows: 5 }\n' })
    expect(created.ok).toBe(true)
    const id = created.result.id
    const evil = join(mkdtempSync(join(tmpdir(), 'p4lab-evil-')), 'overwritten')
    expect(await call('archive.export', { experimentId: id, file: evil })).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    expect(existsSync(evil)).toBe(false)

    rec.dialogs.save = null
    expect(await call('archive.export', { experimentId: id })).toEqual({ ok: true, result: null })
    expect(rec.dialogs.calls.at(-1)).toMatch(/^save .*shell\.tar\.gz$/)
    const chosen = join(mkdtempSync(join(tmpdir(), 'p4lab-chosen-')), 'shell.tar.gz')
    rec.dialogs.save = chosen
    expect(await call('archive.export', { experimentId: id })).toMatchObject({ ok: true, result: { file: chosen } })
    expect([...readFileSync(chosen).subarray(0, 2)]).toEqual([0x1f, 0x8b])

    expect(await call('archive.import', { file: chosen })).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    rec.dialogs.open = chosen
    // Exported from here: the same content is recognised and left alone, unless a copy is asked for.
    expect(await call('archive.import', {})).toMatchObject({ ok: true, result: { name: 'shell', experimentId: id, skipped: true } })
    expect(await call('archive.import', { onDuplicate: 'copy' })).toMatchObject({ ok: true, result: { name: 'shell (2)', skipped: false, duplicateOf: { experimentId: id } } }) // the name is taken: the copy gets the next free one
  })

  it('has a CommonJS preload that exposes exactly the contract methods and `on`, frozen', async () => {
    await import('../../src-main/preload/index')
    expect([...rec.exposed.keys()]).toEqual(['p4lab'])
    const api = rec.exposed.get('p4lab')
    expect(Object.isFrozen(api)).toBe(true)
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES, 'on'].sort())
    await api['runs.get']({ id: 3 })
    expect(rec.invoked.at(-1)).toEqual([IPC_PREFIX + 'runs.get', { id: 3 }])
    expect(() => api.on('process.exit', () => {})).toThrow(/unknown p4lab event/)
    // The built preload is CommonJS and needs nothing but electron (the sandbox allows no more).
    const built = readFileSync(join(ROOT, 'out', 'preload', 'index.cjs'), 'utf8')
    expect(built).not.toMatch(/^\s*(import|export)\s/m)
    const required = [...built.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1])
    expect([...new Set(required)]).toEqual(['electron'])
  })
})
