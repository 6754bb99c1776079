// The contract's archive.export and archive.import (core/archive).
import { isAbsolute } from 'node:path'
import type { Handlers } from '../../contract'
import { ArchiveRefusedError, exportExperiment, importArchive } from '../archive'
import { CoreError, notFound } from '../errors'
import type { Store } from '../store'

export interface ArchiveHandlerDeps {
  store: Store
  /** <userData> of the store: artifacts/, variants/ and imports/. */
  dataDir: string
  p4Dir: string
}

export function archiveHandlers(d: ArchiveHandlerDeps): Pick<Handlers, 'archive.export' | 'archive.import'> {
  const absolute = (file: string) => {
    if (!isAbsolute(file)) throw new CoreError('invalid-request', `expected an absolute path, got ${JSON.stringify(file)}`)
    return file
  }
  return {
    'archive.export': async ({ experimentId, file }) => {
      if (!d.store.getExperiment(experimentId)) throw notFound('experiment', experimentId)
      return exportExperiment({ store: d.store, experimentId, out: absolute(file), dataDir: d.dataDir, p4Dir: d.p4Dir })
    },
    'archive.import': async ({ file }) => {
      try {
        return await importArchive({ file: absolute(file), store: d.store, dataDir: d.dataDir })
      } catch (err) {
        if (err instanceof ArchiveRefusedError) throw new CoreError('invalid-request', err.message)
        throw err
      }
    },
  }
}
