// The desktop shell: a window, a strict CSP and the IPC binding. Everything else is the
// same Node core that the CLI and the web mode use.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, session, shell } from 'electron'
import { createNodeCore } from '../core'
import { defaultDbPath, userDataDir } from '../core/paths'
import { bindIpc } from './ipc'

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// One data directory for the app, the CLI and the web mode.
app.setPath('userData', userDataDir())

async function createWindow(): Promise<void> {
  // better-sqlite3 must be built for Electron's ABI; P4LAB_SQLITE_BINDING points at
  // such a build when the one in node_modules is built for Node (see README).
  const core = createNodeCore({ dbPath: defaultDbPath(), nativeBinding: process.env.P4LAB_SQLITE_BINDING })
  core.start()
  core.watchInterrupted()

  const rendererIndex = join(__dirname, '../renderer/index.html')
  const devUrl = process.env.ELECTRON_RENDERER_URL
  const trustedUrl = (url: string) =>
    devUrl ? url.startsWith(devUrl) : url.startsWith(pathToFileURL(rendererIndex).href)

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })

  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'p4lab',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  })
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https:')) void shell.openExternal(url)
    return { action: 'deny' }
  })
  window.webContents.on('will-navigate', (e, url) => {
    if (!trustedUrl(url)) e.preventDefault()
  })
  const unbind = bindIpc(core, window, trustedUrl)
  window.on('closed', () => {
    unbind()
    core.orchestrator.cancelAll()
  })
  if (devUrl) await window.loadURL(devUrl)
  else await window.loadFile(rendererIndex)
}

app.whenReady().then(createWindow, (err) => {
  console.error('p4lab: failed to start:', err)
  app.exit(1)
})

app.on('window-all-closed', () => app.quit())
