import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { HostKeyChangedError, HostKeyRevokedError, HostKeyUnknownError, type KnownKeyRef } from './errors'

/**
 * OpenSSH known_hosts, read and written the way ssh(1) does:
 *
 * - `[@marker] hosts keytype base64 [comment]`, `#` comments and blank lines;
 * - hosts is a comma-separated list of patterns (`*`, `?`, `!negation`) or one hashed
 *   entry `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`;
 * - the name is `host` for port 22 and `[host]:port` otherwise (lower-cased);
 * - `@revoked` keys are refused for the hosts they match; `@cert-authority` lines are
 *   recognised and skipped (p4lab does not verify host certificates), so they never
 *   count as a host's own key.
 *
 * p4lab writes only its own file (`<userData>/known_hosts`); `~/.ssh/known_hosts` can be
 * consulted read-only so hosts the user already trusts with ssh(1) are known here too.
 * Files are re-read on every check: they are small, and the user may edit them.
 */

export interface KnownHostsOptions {
  /** p4lab's own file: read and appended to. */
  file: string
  /** Files consulted read-only after `file`, e.g. {@link userKnownHostsFile}(). */
  readOnlyFiles?: string[]
}

export type HostKeyVerdict =
  | { status: 'known'; ref: KnownKeyRef }
  | { status: 'unknown'; otherKnown: KnownKeyRef[] }
  | { status: 'changed'; expected: KnownKeyRef[] }
  | { status: 'revoked'; ref: KnownKeyRef }

export interface KnownHostLine {
  file: string
  line: number
  marker: '' | 'revoked' | 'cert-authority'
  /** The hosts field, verbatim. */
  hosts: string
  keyType: string
  key: Buffer
}

/** `~/.ssh/known_hosts` of the current user. */
export function userKnownHostsFile(): string {
  return join(homedir(), '.ssh', 'known_hosts')
}

/**
 * p4lab's known_hosts: `<userData>/known_hosts`, written by p4lab; `~/.ssh/known_hosts` is
 * also consulted, read-only, unless `consultUserFile` is false.
 */
export function p4labKnownHosts(userDataDir: string, opts: { consultUserFile?: boolean } = {}): KnownHosts {
  return new KnownHosts({
    file: join(userDataDir, 'known_hosts'),
    readOnlyFiles: opts.consultUserFile === false ? [] : [userKnownHostsFile()],
  })
}

/** The name known_hosts uses for a host and port: `host`, or `[host]:port` when port ≠ 22. */
export function hostLabel(host: string, port = 22): string {
  const h = host.toLowerCase()
  return port === 22 ? h : `[${h}]:${port}`
}

/** `SHA256:<base64 without padding>` of a raw (wire-format) public key, as ssh-keygen -l prints it. */
export function fingerprint(key: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '')
}

/** The key type written inside a raw (wire-format) public key, e.g. `ssh-ed25519`. */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) throw new Error('not an SSH public key: too short')
  const n = key.readUInt32BE(0)
  if (n === 0 || n > 64 || 4 + n > key.length) throw new Error('not an SSH public key: bad type field')
  return key.subarray(4, 4 + n).toString('latin1')
}

/** One known_hosts line (`hosts keytype base64`) for a key, hashed (the default) or plain. */
export function knownHostsLine(host: string, port: number, key: Buffer, hashed = true): string {
  const name = hostLabel(host, port)
  let hosts = name
  if (hashed) {
    const salt = randomBytes(20)
    const mac = createHmac('sha1', salt).update(name).digest()
    hosts = `|1|${salt.toString('base64')}|${mac.toString('base64')}`
  }
  return `${hosts} ${keyTypeOf(key)} ${key.toString('base64')}`
}

/** Parse one file's text. Lines that are not well-formed are skipped, as ssh(1) does. */
export function parseKnownHosts(text: string, file: string): KnownHostLine[] {
  const out: KnownHostLine[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '').trim()
    if (raw === '' || raw.startsWith('#')) continue
    const fields = raw.split(/[ \t]+/)
    let marker: KnownHostLine['marker'] = ''
    if (fields[0].startsWith('@')) {
      const m = fields.shift()!
      if (m === '@revoked') marker = 'revoked'
      else if (m === '@cert-authority') marker = 'cert-authority'
      else continue // an unknown marker: ssh(1) ignores the line
    }
    if (fields.length < 3) continue
    const [hosts, keyType, b64] = fields
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue
    const key = Buffer.from(b64, 'base64')
    try {
      if (keyTypeOf(key) !== keyType) continue
    } catch {
      continue
    }
    out.push({ file, line: i + 1, marker, hosts, keyType, key })
  }
  return out
}

function globMatch(pattern: string, text: string): boolean {
  // OpenSSH match_pattern: '*' any run, '?' one character, nothing else is special.
  let re = '^'
  for (const ch of pattern) {
    if (ch === '*') re += '.*'
    else if (ch === '?') re += '.'
    else re += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&')
  }
  return new RegExp(re + '$', 's').test(text)
}

/** Whether a hosts field (pattern list or hashed entry) matches `name` (from {@link hostLabel}). */
export function hostsFieldMatches(hosts: string, name: string): boolean {
  if (hosts.startsWith('|1|')) {
    const parts = hosts.split('|')
    if (parts.length !== 4) return false
    const salt = Buffer.from(parts[2], 'base64')
    const want = Buffer.from(parts[3], 'base64')
    const got = createHmac('sha1', salt).update(name).digest()
    return want.length === got.length && timingSafeEqual(want, got)
  }
  let matched = false
  for (const p0 of hosts.split(',')) {
    if (p0 === '') continue
    const negated = p0.startsWith('!')
    const p = (negated ? p0.slice(1) : p0).toLowerCase()
    if (globMatch(p, name)) {
      if (negated) return false
      matched = true
    }
  }
  return matched
}

function ref(l: KnownHostLine): KnownKeyRef {
  return { file: l.file, line: l.line, keyType: l.keyType, fingerprint: fingerprint(l.key) }
}

/** Host key algorithms ssh2 offers by default, most preferred first. */
const DEFAULT_HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
]

export class KnownHosts {
  readonly file: string
  readonly readOnlyFiles: string[]
  private writing: Promise<unknown> = Promise.resolve()

  constructor(opts: KnownHostsOptions) {
    this.file = opts.file
    this.readOnlyFiles = opts.readOnlyFiles ?? []
  }

  /** Every well-formed line of every file, p4lab's own first. */
  async lines(): Promise<KnownHostLine[]> {
    const out: KnownHostLine[] = []
    for (const f of [this.file, ...this.readOnlyFiles]) {
      let text: string
      try {
        text = await fs.readFile(f, 'utf8')
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw e
      }
      out.push(...parseKnownHosts(text, f))
    }
    return out
  }

  async verify(host: string, port: number, key: Buffer): Promise<HostKeyVerdict> {
    const name = hostLabel(host, port)
    const type = keyTypeOf(key)
    const lines = (await this.lines()).filter((l) => hostsFieldMatches(l.hosts, name))
    const revoked = lines.find((l) => l.marker === 'revoked' && l.key.equals(key))
    if (revoked) return { status: 'revoked', ref: ref(revoked) }
    const plain = lines.filter((l) => l.marker === '')
    const same = plain.find((l) => l.key.equals(key))
    if (same) return { status: 'known', ref: ref(same) }
    const sameType = plain.filter((l) => l.keyType === type)
    if (sameType.length) return { status: 'changed', expected: sameType.map(ref) }
    return { status: 'unknown', otherKnown: plain.map(ref) }
  }

  /** {@link verify}, turned into the error a connection attempt throws (or nothing when known). */
  async check(host: string, port: number, key: Buffer): Promise<HostKeyUnknownError | HostKeyChangedError | HostKeyRevokedError | undefined> {
    const v = await this.verify(host, port, key)
    const name = hostLabel(host, port)
    const fp = fingerprint(key)
    const type = keyTypeOf(key)
    switch (v.status) {
      case 'known':
        return undefined
      case 'revoked':
        return new HostKeyRevokedError(name, fp, type, v.ref)
      case 'changed':
        return new HostKeyChangedError(name, host, port, type, fp, v.expected)
      case 'unknown':
        return new HostKeyUnknownError(name, host, port, type, fp, Buffer.from(key), v.otherKnown)
    }
  }

  /**
   * Pin `key` for host:port: append a line to p4lab's own file (hashed unless told
   * otherwise). Call it only after the user confirmed the fingerprint. A key already
   * known is not written twice.
   */
  trust(host: string, port: number, key: Buffer, opts: { hashed?: boolean } = {}): Promise<void> {
    keyTypeOf(key) // refuse garbage before touching the file
    return this.serial(async () => {
      const v = await this.verify(host, port, key)
      if (v.status === 'known') return
      if (v.status === 'revoked') throw new HostKeyRevokedError(hostLabel(host, port), fingerprint(key), keyTypeOf(key), v.ref)
      await this.append(knownHostsLine(host, port, key, opts.hashed ?? true))
    })
  }

  /**
   * Remove every plain entry for host:port from p4lab's own file (the read-only files
   * are left alone). Lines that list other hosts too lose only this name. Returns how
   * many lines changed.
   */
  forget(host: string, port: number): Promise<number> {
    return this.serial(async () => {
      let text: string
      try {
        text = await fs.readFile(this.file, 'utf8')
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0
        throw e
      }
      const name = hostLabel(host, port)
      const lines = text.split('\n')
      let changed = 0
      const kept: string[] = []
      for (const line of lines) {
        const parsed = parseKnownHosts(line, this.file)[0]
        if (!parsed || parsed.marker !== '' || !hostsFieldMatches(parsed.hosts, name)) {
          kept.push(line)
          continue
        }
        changed++
        if (parsed.hosts.startsWith('|1|')) continue
        const rest = parsed.hosts.split(',').filter((p) => p.toLowerCase() !== name)
        if (rest.length && rest.length < parsed.hosts.split(',').length) {
          kept.push(line.replace(parsed.hosts, rest.join(',')))
        }
        // A line that matched only through a wildcard is removed whole: it pinned this host.
      }
      if (changed) await this.rewrite(kept.join('\n'))
      return changed
    })
  }

  /**
   * Host key algorithms to offer, with the types already known for this host first,
   * as ssh(1) does, so a server with several keys presents the one we can check.
   */
  async hostKeyAlgorithms(host: string, port: number): Promise<string[]> {
    const name = hostLabel(host, port)
    const known = new Set(
      (await this.lines()).filter((l) => l.marker === '' && hostsFieldMatches(l.hosts, name)).map((l) => l.keyType),
    )
    const first: string[] = []
    for (const t of known) {
      if (t === 'ssh-rsa') first.push('rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa')
      else if (DEFAULT_HOST_KEY_ALGORITHMS.includes(t)) first.push(t)
    }
    return [...first, ...DEFAULT_HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))]
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn)
    this.writing = next.catch(() => undefined)
    return next
  }

  private async append(line: string): Promise<void> {
    await fs.mkdir(dirname(this.file), { recursive: true, mode: 0o700 })
    let prefix = ''
    try {
      const text = await fs.readFile(this.file, 'utf8')
      if (text.length && !text.endsWith('\n')) prefix = '\n'
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    await fs.appendFile(this.file, prefix + line + '\n', { mode: 0o600 })
  }

  private async rewrite(text: string): Promise<void> {
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`
    await fs.writeFile(tmp, text, { mode: 0o600 })
    await fs.rename(tmp, this.file)
  }
}
