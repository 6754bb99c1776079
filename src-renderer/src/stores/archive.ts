import { defineStore } from 'pinia'
import { ref } from 'vue'
import { ARCHIVE_HTTP, ApiError, methods, type OnDuplicate, type Res } from '@contract/index'
import { call, errorMessage } from '../client'
import { useExperimentsStore } from './experiments'

export type ArchiveDialog = { kind: 'export'; experimentId: number; name: string } | { kind: 'import' } | null

/** What an export gave: where it went (a path from the app's save dialog, or the downloaded file's name). */
export interface Exported {
  file: string
  bytes: number
  files: number | null
  runs: number | null
  downloaded: boolean
}

/** The file name a download carries in its Content-Disposition, else the fallback. */
export function downloadName(disposition: string | null, fallback: string): string {
  const m = /filename="([^"/\\]+)"/.exec(disposition ?? '')
  return m ? m[1] : fallback
}

/** The browser has no window.p4lab: files move as downloads and uploads, never as server paths. */
const webMode = () => typeof window !== 'undefined' && !window.p4lab

/**
 * Export and import of experiment archives. The file is always one the user picks: the
 * desktop app's own save/open dialog (archive.export / archive.import), or in the browser a
 * download and an upload to p4lab serve (ARCHIVE_HTTP, behind the page's token).
 */
export const useArchiveStore = defineStore('archive', () => {
  const dialog = ref<ArchiveDialog>(null)
  const busy = ref(false)
  const error = ref<string | null>(null)
  const exported = ref<Exported | null>(null)
  const imported = ref<Res<'archive.import'> | null>(null)
  /** The archive picked for an upload (web mode). */
  const upload = ref<File | null>(null)
  /** An archive already in the store (same content hash): left alone, or imported as a copy. */
  const onDuplicate = ref<OnDuplicate>('skip')

  function openExport(experimentId: number, name: string): void {
    dialog.value = { kind: 'export', experimentId, name }
    error.value = null
    exported.value = null
  }

  function openImport(): void {
    dialog.value = { kind: 'import' }
    error.value = null
    exported.value = null
    imported.value = null
    upload.value = null
    onDuplicate.value = 'skip'
  }

  function close(): void {
    if (!busy.value) dialog.value = null
  }

  async function download(experimentId: number, name: string): Promise<Exported> {
    const res = await fetch(`${ARCHIVE_HTTP.export}${experimentId}`, { credentials: 'same-origin' })
    if (!res.ok) throw new Error(`The export failed (${res.status}): ${(await res.text()).trim()}`)
    const blob = await res.blob()
    const file = downloadName(res.headers.get('content-disposition'), `${name}.tar.gz`)
    const url = URL.createObjectURL(blob)
    try {
      const a = document.createElement('a')
      a.href = url
      a.download = file
      document.body.appendChild(a)
      a.click()
      a.remove()
    } finally {
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
    }
    const n = (h: string) => (res.headers.get(h) === null ? null : Number(res.headers.get(h)))
    return { file, bytes: blob.size, files: n('x-p4lab-files'), runs: n('x-p4lab-runs'), downloaded: true }
  }

  async function doExport(): Promise<void> {
    const d = dialog.value
    if (!d || d.kind !== 'export') return
    busy.value = true
    error.value = null
    try {
      if (webMode()) exported.value = await download(d.experimentId, d.name)
      else {
        const r = await call('archive.export', { experimentId: d.experimentId })
        if (r) exported.value = { ...r, downloaded: false }
      }
    } catch (err) {
      error.value = errorMessage(err)
    } finally {
      busy.value = false
    }
  }

  async function uploadArchive(file: File): Promise<Res<'archive.import'>> {
    const res = await fetch(`${ARCHIVE_HTTP.import}?name=${encodeURIComponent(file.name)}&duplicate=${onDuplicate.value}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/gzip' },
      body: file,
    })
    let body: unknown
    try {
      body = await res.json()
    } catch {
      throw new Error(`The upload failed (${res.status}): the server's answer is not JSON`)
    }
    const env = body as { ok?: unknown; result?: unknown; error?: unknown }
    if (env.ok !== true) {
      const e = ApiError.safeParse(env.error)
      throw new Error(e.success ? e.data.message : `The upload failed (${res.status})`)
    }
    const parsed = methods['archive.import'].res.safeParse(env.result)
    if (!parsed.success) throw new Error('The answer to the upload does not match the contract')
    return parsed.data
  }

  async function doImport(): Promise<void> {
    busy.value = true
    error.value = null
    imported.value = null
    try {
      if (webMode()) {
        if (!upload.value) throw new Error('Choose an archive first.')
        imported.value = await uploadArchive(upload.value)
      } else {
        imported.value = await call('archive.import', { onDuplicate: onDuplicate.value })
        if (!imported.value) return
      }
      await useExperimentsStore().refreshList()
    } catch (err) {
      error.value = errorMessage(err)
    } finally {
      busy.value = false
    }
  }

  /** After a skip: the same archive again, as a copy. */
  async function importCopy(): Promise<void> {
    onDuplicate.value = 'copy'
    await doImport()
  }

  return { dialog, busy, error, exported, imported, upload, onDuplicate, importCopy, webMode, openExport, openImport, close, doExport, doImport }
})
