// Binds the contract to Electron IPC: one handler per method, each checking that the
// call comes from our own window's top frame before the shared dispatcher validates it.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import { IPC_EVENT_CHANNEL, IPC_PREFIX, METHOD_NAMES } from '../contract/names'
import type { Core } from '../core'
import { createDispatch } from '../core/dispatch'

export function bindIpc(core: Core, window: BrowserWindow, isTrustedUrl: (url: string) => boolean): () => void {
  const dispatch = createDispatch(core.handlers, (err) => console.error('p4lab: internal error:', err))
  const trusted = (e: IpcMainInvokeEvent) =>
    e.sender === window.webContents && e.senderFrame !== null && e.senderFrame === window.webContents.mainFrame &&
    isTrustedUrl(e.senderFrame.url)

  for (const method of METHOD_NAMES) {
    ipcMain.handle(IPC_PREFIX + method, (e, params) => {
      if (!trusted(e)) return { ok: false, error: { code: 'invalid-request', message: 'untrusted sender' } }
      return dispatch(method, params)
    })
  }
  const unsubscribe = core.bus.subscribe((event, payload) => {
    if (!window.isDestroyed()) window.webContents.send(IPC_EVENT_CHANNEL, event, payload)
  })
  return () => {
    unsubscribe()
    for (const method of METHOD_NAMES) ipcMain.removeHandler(IPC_PREFIX + method)
  }
}
