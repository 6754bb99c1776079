import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * Where passwords and key passphrases live. They never go to the database.
 * The Electron shell provides one backed by safeStorage; headless p4lab uses
 * {@link FileSecretStore}. Ids are opaque strings chosen by the caller, e.g.
 * `ssh:passphrase:<testbed>/<host>`.
 */
export interface SecretStore {
  get(id: string): Promise<string | undefined>
  set(id: string, value: string): Promise<void>
  delete(id: string): Promise<void>
}

export class SecretStoreError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SecretStoreError'
  }
}

/** The default file of the headless store, in the user data directory. */
export function defaultSecretsPath(userDataDir: string): string {
  return join(userDataDir, 'secrets.json')
}

/**
 * A JSON object `{ "<id>": "<value>" }` in a file only its owner can read (mode 0600).
 * A file with a wider mode, or owned by someone else, is refused, as ssh refuses such a
 * private key: it may already have leaked, and the user should know. Writes go to a
 * fresh 0600 file that is then renamed over the old one, so a crash never leaves half a
 * file and the mode is never wider, not even for a moment.
 */
export class FileSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string) {}

  async get(id: string): Promise<string | undefined> {
    const all = await this.readAll()
    return Object.prototype.hasOwnProperty.call(all, id) ? all[id] : undefined
  }

  set(id: string, value: string): Promise<void> {
    if (typeof value !== 'string') throw new SecretStoreError(`secret ${JSON.stringify(id)}: the value must be a string`)
    return this.serial(async () => {
      const all = await this.readAll()
      all[id] = value
      await this.writeAll(all)
    })
  }

  delete(id: string): Promise<void> {
    return this.serial(async () => {
      const all = await this.readAll()
      if (!Object.prototype.hasOwnProperty.call(all, id)) return
      delete all[id]
      await this.writeAll(all)
    })
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn)
    this.queue = next.catch(() => undefined)
    return next
  }

  private async readAll(): Promise<Record<string, string>> {
    let handle: fs.FileHandle
    try {
      handle = await fs.open(this.path, 'r')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new SecretStoreError(`cannot open the secret file ${this.path}: ${(e as Error).message}`)
    }
    try {
      // Check the file we opened, not the name (no window between the check and the read).
      const st = await handle.stat()
      if (process.platform !== 'win32') {
        const mode = st.mode & 0o777
        if (mode & 0o077) {
          throw new SecretStoreError(
            `the secret file ${this.path} has mode ${mode.toString(8).padStart(4, '0')}, so others can read it; ` +
              `p4lab refuses to use it. Make it private with: chmod 600 ${this.path}`,
          )
        }
        const uid = process.getuid?.()
        if (uid !== undefined && st.uid !== uid) {
          throw new SecretStoreError(`the secret file ${this.path} belongs to uid ${st.uid}, not to you (uid ${uid}); p4lab refuses to use it`)
        }
      }
      const text = await handle.readFile('utf8')
      if (text.trim() === '') return {}
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        // Never quote the content: it is secrets.
        throw new SecretStoreError(`the secret file ${this.path} is not valid JSON`)
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new SecretStoreError(`the secret file ${this.path} must hold a JSON object`)
      }
      const out: Record<string, string> = Object.create(null)
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v
      return out
    } finally {
      await handle.close()
    }
  }

  private async writeAll(all: Record<string, string>): Promise<void> {
    const dir = dirname(this.path)
    await fs.mkdir(dir, { recursive: true, mode: 0o700 })
    const tmp = join(dir, `.${randomBytes(6).toString('hex')}.secrets.tmp`)
    const handle = await fs.open(tmp, 'wx', 0o600)
    try {
      await handle.chmod(0o600) // in case the umask was odd
      await handle.writeFile(JSON.stringify(all, null, 2) + '\n', 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    try {
      await fs.rename(tmp, this.path)
    } catch (e) {
      await fs.rm(tmp, { force: true })
      throw e
    }
  }
}

/** For tests and for callers that hold a secret only for one session. */
export class MemorySecretStore implements SecretStore {
  private readonly map = new Map<string, string>()
  async get(id: string): Promise<string | undefined> {
    return this.map.get(id)
  }
  async set(id: string, value: string): Promise<void> {
    this.map.set(id, value)
  }
  async delete(id: string): Promise<void> {
    this.map.delete(id)
  }
}
