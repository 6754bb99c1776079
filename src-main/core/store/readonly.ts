// Opening a database this process cannot write (read-only media, no permission): why it
// cannot, and the read-only open that readers get instead (openStore, forReading).
import { existsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { writeDenied } from '../paths'
import { migrate, SCHEMA_VERSION } from './migrations'

/** A database this process cannot write, opened by a caller that writes (or that needs it migrated). */
export class ReadOnlyStoreError extends Error {}

/**
 * Why this process cannot write the database, or null when it can: SQLite writes the file and
 * keeps its -wal and -shm beside it, so the folder must take new files unless both exist and
 * are writable. Asked of the kernel (access), so root on a read-only mount is read-only too.
 */
export function notWritable(file: string): string | null {
  const own = writeDenied(file)
  if (own !== null) return own === 'a read-only file system' ? own : `${own} on the file`
  const folder = writeDenied(dirname(file))
  if (folder === null || [`${file}-wal`, `${file}-shm`].every((f) => existsSync(f) && writeDenied(f) === null)) return null
  return `${folder} on its folder ${dirname(file)}, where SQLite keeps ${file}-wal and -shm`
}

/**
 * A database this process cannot write, opened read-only. A write-ahead log left beside it
 * (another process writing it, or one that ended without its last checkpoint) is read through
 * its -shm; without a log the file alone is the whole database, read as SQLite reads one on
 * read-only media (immutable), since it cannot create the -shm a WAL database otherwise needs.
 */
export function openReadOnly(file: string, why: string, nativeBinding: string | undefined): { db: Database.Database; name: string } {
  const binding = nativeBinding ? { nativeBinding } : {}
  const wal = `${file}-wal`
  const hasLog = existsSync(wal) && statSync(wal).size > 0
  let db: Database.Database | undefined
  let name = file
  try {
    db = newDatabase(file, { ...binding, readonly: true, fileMustExist: true })
    db.pragma('user_version')
  } catch (e) {
    db?.close()
    // Cannot open or cannot make the -shm (SQLITE_READONLY_DIRECTORY, _CANTINIT): the folder takes no new file.
    const code = (e as { code?: string }).code
    if (code !== 'SQLITE_CANTOPEN' && !code?.startsWith('SQLITE_READONLY')) throw e
    if (hasLog) throw new ReadOnlyStoreError(`${file}: it is read-only here (${why}) and has a write-ahead log (${wal}) that cannot be read without creating ${file}-shm: open it once where it can be written, which folds the log into the file`)
    name = `${pathToFileURL(file).href}?immutable=1`
    try {
      db = newDatabase(name, { ...binding, readonly: true, fileMustExist: true })
    } catch (e2) {
      // Unreadable too, or URI names off (better-sqlite3 was loaded before the first openStore).
      throw new ReadOnlyStoreError(`${file}: it is read-only here (${why}) and cannot be read either: ${(e2 as Error).message}`)
    }
  }
  try {
    db.pragma('busy_timeout = 10000')
    const version = db.pragma('user_version', { simple: true }) as number
    if (version > SCHEMA_VERSION) migrate(db, file) // refuses it, with the newer-p4lab message; writes nothing
    if (version < SCHEMA_VERSION) {
      throw new ReadOnlyStoreError(
        `${file}: it is read-only here (${why}) and needs migrating (schema version ${version}, this p4lab reads ${SCHEMA_VERSION}), which writes to it: ` +
          'open it once with a p4lab command where it can be written, then read it here',
      )
    }
  } catch (e) {
    db.close()
    throw e
  }
  return { db, name }
}

/**
 * better-sqlite3 reads SQLITE_USE_URI once, when its addon loads with the first database: set
 * then, a `file:...?immutable=1` name opens a database on read-only media (openReadOnly). A
 * path is read as a URI only when it starts with 'file:', which an absolute one never does.
 */
export function newDatabase(name: string, options: Database.Options): Database.Database {
  const before = process.env.SQLITE_USE_URI
  process.env.SQLITE_USE_URI = '1'
  try {
    return new Database(name, options)
  } finally {
    if (before === undefined) delete process.env.SQLITE_USE_URI
    else process.env.SQLITE_USE_URI = before
  }
}

