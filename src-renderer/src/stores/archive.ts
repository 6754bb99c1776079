import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { Res } from '@contract/index'
import { call, errorMessage } from '../client'
import { useConnectionStore } from './connection'
import { useExperimentsStore } from './experiments'

export type ArchiveDialog = { kind: 'export'; experimentId: number; name: string } | { kind: 'import' } | null

/** Where exports go by default: an exports/ folder beside the database, in the user data directory. */
export function defaultExportPath(dbPath: string | undefined, name: string, now = new Date()): string {
  const sep = dbPath && dbPath.includes('\\') && !dbPath.includes('/') ? '\\' : '/'
  const dir = dbPath ? dbPath.slice(0, Math.max(0, dbPath.lastIndexOf(sep))) : ''
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}`
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'experiment'
  return `${dir || '.'}${sep}exports${sep}${safe}-${stamp}.tar.gz`
}

/** Export and import of experiment archives (archive.export / archive.import), through a dialog. */
export const useArchiveStore = defineStore('archive', () => {
  const dialog = ref<ArchiveDialog>(null)
  const busy = ref(false)
  const error = ref<string | null>(null)
  const exported = ref<Res<'archive.export'> | null>(null)
  const imported = ref<Res<'archive.import'> | null>(null)
  const path = ref('')

  function openExport(experimentId: number, name: string): void {
    const connection = useConnectionStore()
    dialog.value = { kind: 'export', experimentId, name }
    path.value = defaultExportPath(connection.info?.dbPath, name)
    error.value = null
    exported.value = null
  }

  function openImport(): void {
    dialog.value = { kind: 'import' }
    error.value = null
    imported.value = null
  }

  function close(): void {
    if (!busy.value) dialog.value = null
  }

  async function doExport(): Promise<void> {
    const d = dialog.value
    if (!d || d.kind !== 'export') return
    busy.value = true
    error.value = null
    try {
      exported.value = await call('archive.export', { experimentId: d.experimentId, file: path.value.trim() })
    } catch (err) {
      error.value = errorMessage(err)
    } finally {
      busy.value = false
    }
  }

  async function doImport(): Promise<void> {
    busy.value = true
    error.value = null
    imported.value = null
    try {
      imported.value = await call('archive.import', { file: path.value.trim() })
      await useExperimentsStore().refreshList()
    } catch (err) {
      error.value = errorMessage(err)
    } finally {
      busy.value = false
    }
  }

  return { dialog, busy, error, exported, imported, path, openExport, openImport, close, doExport, doImport }
})
