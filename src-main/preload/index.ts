// The renderer's only door to the core: one function per contract method and a
// subscription for contract events, nothing generic. Compiled to CommonJS because
// the renderer is sandboxed.
import { contextBridge, ipcRenderer } from 'electron'
import { EVENT_NAMES, IPC_EVENT_CHANNEL, IPC_PREFIX, METHOD_NAMES, type EventName } from '../contract/names'

const api: Record<string, unknown> = {}
for (const method of METHOD_NAMES) {
  api[method] = (params: unknown) => ipcRenderer.invoke(IPC_PREFIX + method, params)
}

api.on = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
  if (!(EVENT_NAMES as readonly string[]).includes(event)) throw new Error(`unknown p4lab event '${event}'`)
  const handler = (_e: unknown, name: string, payload: unknown) => {
    if (name === event) listener(payload)
  }
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler)
  return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler)
}

contextBridge.exposeInMainWorld('p4lab', Object.freeze(api))
