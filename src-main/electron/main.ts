// The desktop shell: a window, a strict CSP and the IPC binding. Everything else is the
// same Node core that the CLI and the web mode use. The renderer is treated as untrusted:
// sandboxed, no Node, no navigation away from the app, no new windows, no permissions, and
// the files it exports to or imports from come from this process's own dialogs.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, dialog, session, shell, type WebContents } from 'electron'
import { createNodeCore, type ArchiveDialogs } from '../core'
import { defaultDbPath, userDataDir } from '../core/paths'
import { bindIpc } from './ipc'

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** Every window's preferences: the renderer gets no Node, no way out of its sandbox. */
export function webPreferences(preload: string): Electron.WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  }
}

/** New windows are refused (https links open in the user's browser); navigation stays on the app. */
export function lockDown(contents: WebContents, trustedUrl: (url: string) => boolean): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https:')) void shell.openExternal(url)
    return { action: 'deny' }
  })
  const stay = (e: Electron.Event, url: string) => {
    if (!trustedUrl(url)) e.preventDefault()
  }
  contents.on('will-navigate', stay)
  contents.on('will-redirect', stay)
  contents.on('will-attach-webview', (e) => e.preventDefault())
}

// One data directory for the app, the CLI and the web mode.
app.setPath('userData', userDataDir())

let window: BrowserWindow | null = null

const ARCHIVE_FILTERS = [{ name: 'p4lab archive', extensions: ['gz', 'tgz'] }]

/** The files archive.export and archive.import use: picked by the user here, never sent by the renderer. */
const archiveDialogs: ArchiveDialogs = {
  async saveArchive(suggested) {
    if (!window) return null
    const r = await dialog.showSaveDialog(window, { title: 'Export experiment', defaultPath: join(app.getPath('documents'), suggested), filters: ARCHIVE_FILTERS })
    return r.canceled || !r.filePath ? null : r.filePath
  },
  async openArchive() {
    if (!window) return null
    const r = await dialog.showOpenDialog(window, { title: 'Import an experiment archive', properties: ['openFile'], filters: ARCHIVE_FILTERS })
    return r.canceled || r.filePaths.length !== 1 ? null : r.filePaths[0]
  },
}

/** A private key for a testbed host, from ~/.ssh by default (hidden files shown: keys often live in dot folders). */
async function keyFileDialog(): Promise<string | null> {
  if (!window) return null
  const r = await dialog.showOpenDialog(window, { title: 'Choose an SSH private key', defaultPath: join(app.getPath('home'), '.ssh'), properties: ['openFile', 'showHiddenFiles'] })
  return r.canceled || r.filePaths.length !== 1 ? null : r.filePaths[0]
}

async function createWindow(): Promise<void> {
  // better-sqlite3 must be built for Electron's ABI; P4LAB_SQLITE_BINDING points at
  // such a build when the one in node_modules is built for Node (see README).
  const core = createNodeCore({ dbPath: defaultDbPath(), nativeBinding: process.env.P4LAB_SQLITE_BINDING, archiveDialogs, keyFileDialog })
  core.start()
  core.watchInterrupted()
  // Slurm sweeps left open by an earlier session: the job ids are in the store.
  core.followSlurm()

  const rendererIndex = join(__dirname, '../renderer/index.html')
  const devUrl = process.env.ELECTRON_RENDERER_URL
  const trustedUrl = (url: string) =>
    devUrl ? url.startsWith(devUrl) : url.startsWith(pathToFileURL(rendererIndex).href)

  // Pages served over http (the dev server) get the CSP as a header; the built page, a file,
  // carries the same rules in its own meta tag (src-renderer/index.html).
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.defaultSession.setPermissionCheckHandler(() => false)

  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'p4lab',
    webPreferences: webPreferences(join(__dirname, '../preload/index.cjs')),
  })
  window = win
  lockDown(win.webContents, trustedUrl)
  const unbind = bindIpc(core, win, trustedUrl)
  win.on('closed', () => {
    window = null
    unbind()
    core.orchestrator.cancelAll()
  })
  if (devUrl) await win.loadURL(devUrl)
  else await win.loadFile(rendererIndex)
}

// Any other web contents (none is made on purpose: the one window is locked in createWindow)
// gets the same locks, trusting no URL.
app.on('web-contents-created', (_e, contents) => {
  if (contents.getType() !== 'window') lockDown(contents, () => false)
})

app.whenReady().then(createWindow, (err) => {
  console.error('p4lab: failed to start:', err)
  app.exit(1)
})

app.on('window-all-closed', () => app.quit())
