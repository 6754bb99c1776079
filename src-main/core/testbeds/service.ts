// Testbeds: the model (validation, the store, secrets), Check and Trust. The CLI and
// the contract's handlers both call this; nothing here knows about either.
import { promises as fs } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { utils } from 'ssh2'
import {
  TestbedInput,
  type HostRole,
  type Testbed,
  type TestbedCheck,
  type TestbedHost,
} from '../../contract/schemas'
import { CoreError, notFound } from '../errors'
import type { SecretStore } from '../secrets'
import { SshPool, fingerprint, type KnownHosts, type SshTarget } from '../ssh'
import type { Store } from '../store'
import type { HostRow, HostRowInput, TestbedRow } from '../store/testbeds'
import { checkHost, type CheckOptions } from './check'
import { describeStoredKey, fetchHostKey, storedKeyText } from './hostkey'
import type { RemoteKind, MappingPreview } from '../../contract/testbeds'
import { TestbedMapping } from '../../contract/testbed-mapping'
import type { FabricSpec } from '../../model/topology'
import { mappingFromYaml, mappingToYaml, previewMapping, validateMapping } from './mapping'
import { KINDS } from '../targets/kinds'

export interface TestbedServiceOptions {
  store: Store
  knownHosts: KnownHosts
  secrets: SecretStore
  /** Target kinds that have a driver (a run on any other kind is refused). */
  runnableKinds: () => readonly string[]
  /** Where a relative key file path resolves from. Default process.cwd(). */
  baseDir?: string
  /** ms for TCP connect + handshake + login. Default 15 000. */
  connectTimeoutMs?: number
  env?: NodeJS.ProcessEnv
}

/** The secret-store id of a host's key passphrase. Ids never change while the host exists. */
export function passphraseSecretId(hostId: number): string {
  return `ssh:key-passphrase:host-${hostId}`
}

/** zod issues as one line each: `hosts[0].port: a port is 1-65535`. */
export function formatIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .map((i) => {
      const path = i.path.map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n ? '.' : ''}${String(p)}`)).join('')
      return path ? `${path}: ${i.message}` : i.message
    })
    .join('; ')
}

function expandHome(p: string): string {
  return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p
}

export class TestbedService {
  constructor(private readonly o: TestbedServiceOptions) {}

  /** Every testbed name, for experiment files (`testbed:`). */
  names(): string[] {
    return this.o.store.testbedNames()
  }

  async list(): Promise<Testbed[]> {
    return Promise.all(this.o.store.listTestbeds().map((r) => this.toApi(r)))
  }

  async get(name: string): Promise<Testbed> {
    return this.toApi(this.row(name))
  }

  /**
   * Why a run on this testbed cannot start, or null when it can: a run needs a driver for the
   * testbed's kind, and a p4lab started without one (a stripped-down build, a test) says so.
   */
  notRunnable(name: string): string | null {
    const row = this.o.store.getTestbed(name)
    if (!row) return `testbed '${name}' does not exist`
    if (this.o.runnableKinds().includes(row.kind) || this.o.runnableKinds().includes(name)) return null
    return (
      `testbed '${name}' is a ${row.kind} testbed, and this p4lab was started without the ${row.kind} driver: ` +
      `it cannot run experiments on ${row.kind} hosts (it can check them: p4lab testbed check ${name}). Nothing was run.`
    )
  }

  async create(input: unknown): Promise<Testbed> {
    const t = this.validate(input)
    if (this.o.store.getTestbed(t.name)) throw new CoreError('conflict', `a testbed named '${t.name}' already exists`)
    const hosts = await this.prepareHosts(t.kind, t.hosts, [])
    const row = this.o.store.createTestbed({ name: t.name, kind: t.kind, settings: t.settings, hosts: hosts.map((h) => h.row) })
    try {
      await this.saveSecrets(row, hosts)
    } catch (e) {
      for (const id of this.o.store.deleteTestbed(row.id)) await this.o.secrets.delete(passphraseSecretId(id)).catch(() => undefined)
      throw e
    }
    return this.get(row.name)
  }

  async update(name: string, input: unknown): Promise<Testbed> {
    const old = this.row(name)
    if (old.kind === 'sim') throw new CoreError('conflict', "the 'sim' testbed is built in and cannot be changed")
    const t = this.validate(input)
    if (t.name !== old.name && this.o.store.getTestbed(t.name)) throw new CoreError('conflict', `a testbed named '${t.name}' already exists`)
    for (const h of t.hosts) {
      if (h.id !== undefined && !old.hosts.some((o) => o.id === h.id)) {
        throw new CoreError('invalid-request', `host id ${h.id} (${h.name}) is not a host of testbed '${old.name}'`)
      }
    }
    const hosts = await this.prepareHosts(t.kind, t.hosts, old.hosts)
    const { row, removedHostIds } = this.o.store.updateTestbed(old.id, {
      name: t.name,
      kind: t.kind,
      settings: t.settings,
      hosts: hosts.map((h) => h.row),
    })
    for (const id of removedHostIds) await this.o.secrets.delete(passphraseSecretId(id))
    await this.saveSecrets(row, hosts)
    return this.get(row.name)
  }

  async delete(name: string): Promise<boolean> {
    const row = this.o.store.getTestbed(name)
    if (!row) return false
    if (row.kind === 'sim') throw new CoreError('conflict', "the 'sim' testbed is built in and cannot be removed")
    for (const id of this.o.store.deleteTestbed(row.id)) await this.o.secrets.delete(passphraseSecretId(id))
    return true
  }

  /** Stores the mapping (an object or YAML text), or removes it with null; errors name the field at fault. */
  async setMapping(name: string, input: { mapping?: unknown; yaml?: string }): Promise<Testbed> {
    const row = this.row(name)
    if (row.kind === 'sim') throw new CoreError('conflict', "the 'sim' testbed runs everything in this process; it has no hosts to map onto")
    const read = input.yaml !== undefined && input.yaml.trim() !== '' ? mappingFromYaml(input.yaml) : undefined
    const raw = input.yaml !== undefined ? (read ? read.mapping : null) : input.mapping
    if (raw === undefined) throw new CoreError('invalid-request', 'give the mapping (or null to remove it), or its YAML')
    this.o.store.setTestbedMapping(row.id, raw === null ? null : validateMapping(row.kind, row.hosts, raw, read?.lineOf))
    return this.get(row.name)
  }

  /** The mapping (given, else the stored one) over a fabric: what goes on which host, and what does not fit. */
  previewMapping(name: string, topology: FabricSpec, mapping?: unknown): MappingPreview {
    const row = this.row(name)
    const m = mapping !== undefined && mapping !== null ? validateMapping(row.kind, row.hosts, mapping) : this.storedMapping(row)
    return previewMapping(topology, m, row.hosts)
  }

  /** The stored mapping, or null (none, or one this version cannot read: it is shown as missing, never guessed at). */
  storedMapping(row: TestbedRow): TestbedMapping | null {
    if (row.mapping === null || row.mapping === undefined) return null
    const p = TestbedMapping.safeParse(row.mapping)
    return p.success ? p.data : null
  }

  /** Logs in to every host (or the one named) and reports what it finds. */
  async check(name: string, opts: CheckOptions & { host?: string } = {}): Promise<TestbedCheck> {
    const row = this.row(name)
    if (row.kind === 'sim') {
      return { testbed: row.name, kind: 'sim', checkedAt: new Date().toISOString(), ready: true, hosts: [] }
    }
    const kind = row.kind
    const hosts = opts.host ? [this.host(row, opts.host)] : row.hosts
    // A pool per host: two hosts of a testbed may be one machine and login with different keys.
    const pools = hosts.map(
      () =>
        new SshPool({
          knownHosts: this.o.knownHosts,
          secrets: this.o.secrets,
          readyTimeout: this.o.connectTimeoutMs ?? 15_000,
          env: this.o.env,
          backoff: { maxAttempts: 1 },
        }),
    )
    try {
      const results = await Promise.all(
        hosts.map(async (h, i) => {
          const target = await this.target(h)
          const r = await checkHost(pools[i], kind, row.settings, { name: h.name, role: h.role as HostRole, target }, opts)
          if (r.status === 'ok' && r.hostKey && !r.hostKey.keyType) r.hostKey = await this.knownKeyType(r.hostKey.fingerprint, h)
          return r
        }),
      )
      return {
        testbed: row.name,
        kind: row.kind,
        checkedAt: new Date().toISOString(),
        ready: results.every((r) => r.status === 'ok' && r.missing.length === 0),
        hosts: results,
      }
    } finally {
      for (const p of pools) p.closeAll()
    }
  }

  /** The key a host presents now, and what known_hosts says of it. Logs in to nothing. */
  async scanHostKey(name: string, hostName: string): Promise<{ host: HostRow; key: Buffer; keyType: string; fingerprint: string; status: 'known' | 'unknown' | 'changed' | 'revoked' }> {
    const host = this.host(this.row(name), hostName)
    const k = await fetchHostKey(this.o.knownHosts, host.address, host.port, this.o.connectTimeoutMs ?? 15_000)
    const verdict = await this.o.knownHosts.verify(host.address, host.port, k.key)
    return { host, ...k, status: verdict.status }
  }

  /**
   * Pins a host's key after the user confirmed `expectedFingerprint`. The key is fetched
   * again, and pinned only if it still has that fingerprint; a key that replaced a known
   * one (changed) or that is revoked is never pinned here.
   */
  async trust(name: string, hostName: string, expectedFingerprint: string): Promise<{ host: string; keyType: string; fingerprint: string; alreadyTrusted: boolean }> {
    let scan
    try {
      scan = await this.scanHostKey(name, hostName)
    } catch (e) {
      if (e instanceof CoreError) throw e
      throw new CoreError('internal', `cannot fetch the host key of ${hostName}: ${(e as Error).message}`)
    }
    const { host, key, keyType } = scan
    if (scan.fingerprint !== expectedFingerprint) {
      throw new CoreError(
        'conflict',
        `${host.name} (${host.address} port ${host.port}) now presents the ${keyType} key ${scan.fingerprint}, ` +
          `not the ${expectedFingerprint} you confirmed; nothing was pinned. Check again and compare the fingerprint.`,
      )
    }
    if (scan.status === 'changed' || scan.status === 'revoked') {
      // The layer's own message says which line to remove and why.
      const err = await this.o.knownHosts.check(host.address, host.port, key)
      throw new CoreError('conflict', `${err?.message ?? `the host key of ${host.name} has changed`}; p4lab does not replace a pinned key`)
    }
    const alreadyTrusted = scan.status === 'known'
    if (!alreadyTrusted) await this.o.knownHosts.trust(host.address, host.port, key)
    this.o.store.setHostKey(host.id, storedKeyText(key))
    return { host: host.name, keyType, fingerprint: fingerprint(key), alreadyTrusted }
  }

  // ---- helpers ----

  private row(name: string): TestbedRow {
    const row = this.o.store.getTestbed(name)
    if (!row) throw notFound('testbed', `'${name}'`)
    return row
  }

  private host(row: TestbedRow, name: string): HostRow {
    const h = row.hosts.find((x) => x.name === name)
    if (!h) {
      const names = row.hosts.map((x) => x.name).join(', ')
      throw new CoreError('not-found', `testbed '${row.name}' has no host '${name}'${names ? `; its hosts: ${names}` : ''}`)
    }
    return h
  }

  private async target(h: HostRow): Promise<SshTarget> {
    if (h.auth === 'agent') return { host: h.address, port: h.port, user: h.user, auth: { kind: 'agent' } }
    const id = passphraseSecretId(h.id)
    const has = (await this.o.secrets.get(id)) !== undefined
    return {
      host: h.address,
      port: h.port,
      user: h.user,
      auth: { kind: 'key', path: h.keyFile ?? '', ...(has ? { passphraseSecret: id } : {}) },
    }
  }

  private async knownKeyType(fp: string, h: HostRow): Promise<{ keyType: string; fingerprint: string }> {
    const pinned = describeStoredKey(h.hostKey)
    if (pinned?.fingerprint === fp) return pinned
    const line = (await this.o.knownHosts.lines()).find((l) => fingerprint(l.key) === fp)
    return { keyType: line?.keyType ?? '', fingerprint: fp }
  }

  private validate(input: unknown) {
    const parsed = TestbedInput.safeParse(input)
    if (!parsed.success) throw new CoreError('invalid-request', `invalid testbed: ${formatIssues(parsed.error.issues)}`)
    const t = parsed.data
    if (t.name === 'sim') throw new CoreError('conflict', "'sim' is the built-in simulator testbed; choose another name")
    const problems: string[] = []
    const roles = KINDS[t.kind].roles
    const seen = new Set<string>()
    t.hosts.forEach((h, i) => {
      if (seen.has(h.name)) problems.push(`hosts[${i}].name: two hosts are named '${h.name}'`)
      seen.add(h.name)
      if (h.role && !roles.includes(h.role)) {
        problems.push(`hosts[${i}].role: a ${t.kind} host is ${roles.map((r) => `'${r}'`).join(' or ')}, not '${h.role}'`)
      }
    })
    const need = roles[0]
    if (!t.hosts.some((h) => (h.role ?? need) === need)) problems.push(`hosts: a ${t.kind} testbed needs a '${need}' host`)
    if (problems.length) throw new CoreError('invalid-request', `invalid testbed: ${problems.join('; ')}`)
    const settings = KINDS[t.kind].parseSettings(t.settings)
    // Earlier versions stored a bring-up choice the driver never used: it is not kept.
    delete settings.bringUp
    return { ...t, settings }
  }

  /**
   * Resolves key files and checks them here, where the key must be readable: it exists,
   * is a private key, and opens with the passphrase given or stored (an encrypted key
   * without one is refused).
   */
  private async prepareHosts(
    kind: RemoteKind,
    hosts: ReturnType<TestbedService['validate']>['hosts'],
    old: HostRow[],
  ): Promise<Array<{ row: HostRowInput; passphrase: string | null | undefined; index: number }>> {
    const out = []
    for (const [i, h] of hosts.entries()) {
      let keyFile: string | null = null
      if (h.auth === 'key' && h.keyFile) {
        keyFile = resolve(this.o.baseDir ?? process.cwd(), expandHome(h.keyFile))
        const where = `hosts[${i}] (${h.name}): key file ${keyFile}`
        let data: Buffer
        try {
          const st = await fs.stat(keyFile)
          if (!st.isFile()) throw new CoreError('invalid-request', `${where} is not a file`)
          data = await fs.readFile(keyFile)
        } catch (e) {
          if (e instanceof CoreError) throw e
          const code = (e as NodeJS.ErrnoException).code
          throw new CoreError('invalid-request', code === 'ENOENT' ? `${where} does not exist` : `${where} cannot be read: ${(e as Error).message}`)
        }
        let passphrase = h.passphrase ?? undefined
        if (h.passphrase === undefined && h.id !== undefined && old.some((o) => o.id === h.id)) {
          passphrase = await this.o.secrets.get(passphraseSecretId(h.id))
        }
        const parsed = utils.parseKey(data, passphrase)
        if (parsed instanceof Error) {
          const encrypted = /passphrase|encrypt|decrypt|bad decrypt/i.test(parsed.message)
          throw new CoreError(
            'invalid-request',
            encrypted
              ? passphrase === undefined
                ? `${where} is encrypted: give its passphrase (it is kept in the secret store, never in the database)`
                : `${where}: the passphrase does not open it`
              : `${where} is not a private key p4lab can read (${parsed.message})`,
          )
        }
        const key = Array.isArray(parsed) ? parsed[0] : parsed
        if (!key.isPrivateKey()) throw new CoreError('invalid-request', `${where} is a public key; give the private key (without .pub)`)
        if (!isAbsolute(keyFile)) throw new CoreError('invalid-request', `${where}: cannot make the path absolute`)
      }
      out.push({
        index: i,
        passphrase: h.auth === 'key' ? h.passphrase : null,
        row: {
          ...(h.id !== undefined ? { id: h.id } : {}),
          name: h.name,
          address: h.address,
          port: h.port,
          user: h.user,
          auth: h.auth,
          keyFile,
          role: h.role ?? KINDS[kind].roles[0],
        },
      })
    }
    return out
  }

  private async saveSecrets(row: TestbedRow, hosts: Array<{ row: HostRowInput; passphrase: string | null | undefined; index: number }>): Promise<void> {
    for (const h of hosts) {
      const saved = row.hosts.find((x) => x.name === h.row.name)
      if (!saved) continue
      const id = passphraseSecretId(saved.id)
      if (typeof h.passphrase === 'string') await this.o.secrets.set(id, h.passphrase)
      else if (h.passphrase === null) await this.o.secrets.delete(id)
    }
  }

  private async toApi(r: TestbedRow): Promise<Testbed> {
    const hosts: TestbedHost[] = []
    for (const h of r.hosts) {
      hosts.push({
        id: h.id,
        name: h.name,
        address: h.address,
        port: h.port,
        user: h.user,
        auth: h.auth,
        keyFile: h.keyFile,
        role: h.role as HostRole,
        hostKey: describeStoredKey(h.hostKey),
        hasPassphrase: h.auth === 'key' && (await this.o.secrets.get(passphraseSecretId(h.id))) !== undefined,
      })
    }
    const mapping = this.storedMapping(r)
    return { id: r.id, name: r.name, kind: r.kind, settings: r.settings, hosts, createdAt: r.createdAt, builtin: r.kind === 'sim', mapping, mappingYaml: mapping ? mappingToYaml(mapping) : null }
  }
}
