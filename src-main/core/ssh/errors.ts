/**
 * Errors of the SSH layer. Each has a stable `code` the UI and the CLI act on (ask the
 * user to confirm a host key, show a login problem, retry after a dropped connection).
 * No message ever holds a password or a passphrase: the layer never formats one in, and
 * {@link scrubSecrets} removes any that a library might have echoed.
 */
export type SshErrorCode =
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'host-key-revoked'
  | 'auth'
  | 'connect'
  | 'connection-lost'
  | 'aborted'
  | 'closed'
  | 'remote'
  | 'process'
  | 'usage'

export class SshError extends Error {
  /** The local key file (a path on this machine) that the message names, if any: see {@link withoutKeyFile}. */
  readonly keyFile?: string

  constructor(
    readonly code: SshErrorCode,
    message: string,
    options?: { cause?: unknown; keyFile?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SshError'
    if (options?.keyFile) this.keyFile = options.keyFile
  }
}

/**
 * `e`'s message with the local key file it names said as "the key file WHOSE" (e.g. "of host
 * sw1"), its path nowhere: for text that leaves this machine with the runs (their errors go into
 * run tables, CSVs and archives, once for each run held behind one). The path is the user's.
 */
export function withoutKeyFile(e: SshError, whose: string): string {
  if (!e.keyFile) return e.message
  return e.message.split(`the key file ${e.keyFile}`).join(`the key file ${whose}`).split(e.keyFile).join(`the key file ${whose}`)
}

export interface KnownKeyRef {
  file: string
  /** 1-based line number in `file`. */
  line: number
  keyType: string
  fingerprint: string
}

/** The server offered a key that no known_hosts file has for this host. */
export class HostKeyUnknownError extends SshError {
  constructor(
    /** `host` or `[host]:port`, as known_hosts writes it. */
    readonly hostLabel: string,
    readonly host: string,
    readonly port: number,
    readonly keyType: string,
    readonly fingerprint: string,
    /** The raw key (SSH wire format), to pass to `KnownHosts.trust` once the user confirms. */
    readonly key: Buffer,
    /** Keys of other types already known for this host (OpenSSH warns about these too). */
    readonly otherKnown: KnownKeyRef[] = [],
  ) {
    super(
      'host-key-unknown',
      `the authenticity of host ${hostLabel} cannot be established: its ${keyType} key fingerprint is ${fingerprint}` +
        (otherKnown.length
          ? ` (keys of other types are known for this host: ${otherKnown.map((k) => `${k.keyType} ${k.fingerprint}`).join(', ')})`
          : '') +
        `; confirm the fingerprint and trust the key to continue`,
    )
    this.name = 'HostKeyUnknownError'
  }
}

/** The server offered a key of a type we know for this host, but a different one. */
export class HostKeyChangedError extends SshError {
  constructor(
    readonly hostLabel: string,
    readonly host: string,
    readonly port: number,
    readonly keyType: string,
    readonly fingerprint: string,
    readonly expected: KnownKeyRef[],
  ) {
    super(
      'host-key-changed',
      `the host key of ${hostLabel} has changed: expected ${expected.map((e) => e.fingerprint).join(' or ')}, got ${fingerprint}` +
        `; if this is expected, remove ${expected.map((e) => `line ${e.line} of ${e.file}`).join(' and ')}` +
        ` (if it is not, someone may be intercepting the connection)`,
    )
    this.name = 'HostKeyChangedError'
  }
}

/** The server offered a key marked `@revoked` in a known_hosts file. */
export class HostKeyRevokedError extends SshError {
  constructor(
    readonly hostLabel: string,
    readonly fingerprint: string,
    readonly keyType: string,
    readonly ref: KnownKeyRef,
  ) {
    super(
      'host-key-revoked',
      `the host key of ${hostLabel} (${keyType} ${fingerprint}) is marked @revoked on line ${ref.line} of ${ref.file}; p4lab refuses it`,
    )
    this.name = 'HostKeyRevokedError'
  }
}

/** Replace every occurrence of any of `secrets` in `text` by `***`. */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const s of secrets) if (s && s.length >= 1) out = out.split(s).join('***')
  return out
}

/**
 * Whether `e` says the host cannot be reached as it is set up: nothing answers (refused, timed
 * out, a name that does not resolve, a reconnect that gave up), its host key is unknown, changed
 * or revoked, or the login fails. Not a command's own failure, nor a connection lost under one.
 */
export function isUnreachable(e: unknown): e is SshError {
  return e instanceof SshError && (e.code === 'connect' || e.code === 'auth' || e.code.startsWith('host-key'))
}
