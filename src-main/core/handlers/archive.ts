// The contract's archive.export and archive.import (core/archive). The file always comes from
// the user, never from the page: the desktop shell passes its own save/open dialogs; a core
// without them (web mode, where an export is a download and an import an upload) refuses.
import type { Handlers } from '../../contract'
import { ArchiveRefusedError, exportExperiment, importArchive } from '../archive'
import { CoreError, notFound } from '../errors'
import type { Store } from '../store'

/** Files picked by the user in the app's own dialogs; null when the dialog was cancelled. */
export interface ArchiveDialogs {
  /** Where to write the archive; `suggested` is a file name. The dialog has asked about overwriting. */
  saveArchive(suggested: string): Promise<string | null>
  openArchive(): Promise<string | null>
}

export interface ArchiveHandlerDeps {
  store: Store
  /** <userData> of the store: artifacts/, variants/ and imports/. */
  dataDir: string
  p4Dir: string
  dialogs?: ArchiveDialogs
}

/** The archive's file name for an experiment: its name, tamed for any file system. */
export function archiveFileName(name: string): string {
  return `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'experiment'}.tar.gz`
}

const NO_DIALOG =
  'takes its file from the desktop app\u2019s own dialog, and this p4lab has none: in the browser an export is a download ' +
  'and an import an upload (the Export and Import dialogs do that); on the command line use p4lab export -o FILE or p4lab import FILE'

export function archiveHandlers(d: ArchiveHandlerDeps): Pick<Handlers, 'archive.export' | 'archive.import'> {
  return {
    'archive.export': async ({ experimentId }) => {
      const exp = d.store.getExperiment(experimentId)
      if (!exp) throw notFound('experiment', experimentId)
      if (!d.dialogs) throw new CoreError('invalid-request', `archive.export ${NO_DIALOG}`)
      const file = await d.dialogs.saveArchive(archiveFileName(exp.name))
      if (file === null) return null
      return exportExperiment({ store: d.store, experimentId, out: file, dataDir: d.dataDir, p4Dir: d.p4Dir, overwrite: true })
    },
    'archive.import': async ({ onDuplicate }) => {
      if (!d.dialogs) throw new CoreError('invalid-request', `archive.import ${NO_DIALOG}`)
      const file = await d.dialogs.openArchive()
      if (file === null) return null
      try {
        return await importArchive({ file, store: d.store, dataDir: d.dataDir, onDuplicate })
      } catch (err) {
        if (err instanceof ArchiveRefusedError) throw new CoreError('invalid-request', `${file}: ${err.message}`)
        throw err
      }
    },
  }
}
