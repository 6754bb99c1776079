import { promises as fs } from 'node:fs'
import { Client, utils, type ConnectConfig } from 'ssh2'
import type { SecretStore } from '../secrets'
import { SshError, scrubSecrets } from './errors'
import { fingerprint, hostLabel, type KnownHosts } from './known-hosts'

/**
 * How to log in. A password or a key passphrase is never held here, only the id of the
 * secret in the {@link SecretStore}; that is what the database stores.
 */
export type SshAuth =
  /** ssh-agent; `socket` defaults to `SSH_AUTH_SOCK`. */
  | { kind: 'agent'; socket?: string }
  /** A private key file (OpenSSH, PEM or PPK), with its passphrase in the SecretStore when it is encrypted. */
  | { kind: 'key'; path: string; passphraseSecret?: string }
  | { kind: 'password'; passwordSecret: string }

export interface SshTarget {
  host: string
  /** Default 22. */
  port?: number
  user: string
  auth: SshAuth
  /** Sessions open at once on one connection (the server's MaxSessions); default the pool's, 10. */
  maxSessions?: number
}

export interface ConnectOptions {
  knownHosts: KnownHosts
  secrets: SecretStore
  /** ms between SSH keepalives (OpenSSH ServerAliveInterval). Default 15 000; 0 turns them off. */
  keepaliveInterval?: number
  /** Unanswered keepalives before the connection counts as dead. Default 3. */
  keepaliveCountMax?: number
  /** ms allowed for the TCP connect, the handshake and the login. Default 20 000. */
  readyTimeout?: number
  /** Environment to read SSH_AUTH_SOCK from. Default process.env. */
  env?: NodeJS.ProcessEnv
}

export interface Connected {
  client: Client
  /** Fingerprint of the host key the server presented (already verified). */
  hostKey: string
}

/** `user@host` or `user@[host]:port`, for messages. */
export function targetLabel(t: SshTarget): string {
  return `${t.user}@${hostLabel(t.host, t.port ?? 22)}`
}

/** A socket error in the words a lab engineer acts on; the errno text stays in parentheses. */
export function socketProblem(e: NodeJS.ErrnoException, host: string, port: number, msg: string): string {
  if (e.code === 'ECONNREFUSED') return `nothing listens on port ${port} there (connection refused: ${msg}); is sshd running, and is the port right?`
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `the name '${host}' does not resolve (${msg}); is it spelled right?`
  // ssh2's own words, with no code: the peer took the connection and dropped it before speaking SSH.
  if (msg === 'Connection lost before handshake') return `the connection closed before the SSH handshake (${msg}); is it an SSH server that answers on port ${port}, or does a firewall cut the connection?`
  return msg
}

function describeAuth(a: SshAuth, env: NodeJS.ProcessEnv): string {
  switch (a.kind) {
    case 'agent':
      return `the ssh-agent at ${a.socket ?? env.SSH_AUTH_SOCK}`
    case 'key':
      return `the key file ${a.path}`
    case 'password':
      return 'a password'
  }
}

/**
 * Open one verified, authenticated connection. Host keys are checked against known_hosts
 * before anything else is sent; an unknown, changed or revoked key rejects with the
 * matching error from ./errors (the unknown one carries the key, for `KnownHosts.trust`).
 */
export async function connect(target: SshTarget, opts: ConnectOptions): Promise<Connected> {
  const env = opts.env ?? process.env
  const port = target.port ?? 22
  const label = targetLabel(target)
  const secrets: string[] = []
  const cfg: ConnectConfig = {
    host: target.host,
    port,
    username: target.user,
    keepaliveInterval: opts.keepaliveInterval ?? 15_000,
    keepaliveCountMax: opts.keepaliveCountMax ?? 3,
    readyTimeout: opts.readyTimeout ?? 20_000,
    algorithms: { serverHostKey: (await opts.knownHosts.hostKeyAlgorithms(target.host, port)) as never },
  }

  const auth = target.auth
  if (auth.kind === 'agent') {
    const socket = auth.socket ?? env.SSH_AUTH_SOCK
    if (!socket) throw new SshError('auth', `${label}: no ssh-agent (SSH_AUTH_SOCK is not set); start one and ssh-add your key, or use a key file`)
    cfg.agent = socket
  } else if (auth.kind === 'key') {
    let data: Buffer
    try {
      data = await fs.readFile(auth.path)
    } catch (e) {
      // fs names the path again (", open '...'"): once is enough.
      const why = (e as Error).message.replace(/, open '.*'$/s, '')
      throw new SshError('auth', `${label}: cannot read the key file ${auth.path}: ${why}`, { keyFile: auth.path })
    }
    const passphrase = auth.passphraseSecret ? await opts.secrets.get(auth.passphraseSecret) : undefined
    if (auth.passphraseSecret && passphrase === undefined) {
      throw new SshError('auth', `${label}: the key file ${auth.path} needs the passphrase stored as secret ${JSON.stringify(auth.passphraseSecret)}, and there is none`, { keyFile: auth.path })
    }
    if (passphrase !== undefined) secrets.push(passphrase)
    // Parse first, for a clear message (ssh2 would throw from connect()).
    const parsed = utils.parseKey(data, passphrase)
    if (parsed instanceof Error) {
      const msg = scrubSecrets(parsed.message, secrets)
      const hint = /passphrase|encrypt|decrypt/i.test(msg)
        ? passphrase === undefined
          ? '; the key is encrypted: store its passphrase in the secret store and give its id'
          : '; is the stored passphrase right?'
        : ''
      throw new SshError('auth', `${label}: cannot use the key file ${auth.path}: ${msg}${hint}`, { keyFile: auth.path })
    }
    cfg.privateKey = data
    if (passphrase !== undefined) cfg.passphrase = passphrase
  } else {
    const password = await opts.secrets.get(auth.passwordSecret)
    if (password === undefined) throw new SshError('auth', `${label}: no password stored as secret ${JSON.stringify(auth.passwordSecret)}`)
    secrets.push(password)
    cfg.password = password
  }

  const client = new Client()
  let hostKeyError: Error | undefined
  let hostKey = ''
  cfg.hostVerifier = ((key: Buffer, verify: (ok: boolean) => void): void => {
    hostKey = fingerprint(key)
    opts.knownHosts.check(target.host, port, key).then(
      (err) => {
        hostKeyError = err
        verify(!err)
      },
      (err: Error) => {
        hostKeyError = new SshError('connect', `${label}: cannot check the host key: ${err.message}`, { cause: err })
        verify(false)
      },
    )
  }) as ConnectConfig['hostVerifier']

  return new Promise<Connected>((resolve, reject) => {
    let done = false
    const finish = (err?: Error) => {
      if (done) return
      done = true
      client.removeListener('ready', onReady)
      client.removeListener('error', onError)
      client.removeListener('close', onClose)
      if (err) {
        client.on('error', () => undefined) // late errors of a failed attempt must not crash us
        client.end()
        reject(err)
      } else {
        // A socket error after login ends in 'close', which the owner handles; never let
        // it surface as an unhandled 'error' event.
        client.on('error', () => undefined)
        resolve({ client, hostKey })
      }
    }
    const onReady = () => finish()
    const onError = (e: Error & { level?: string }) => {
      if (hostKeyError) return finish(hostKeyError)
      const msg = scrubSecrets(e.message, secrets)
      if (e.level === 'client-authentication') {
        return finish(new SshError('auth', `${label}: authentication failed with ${describeAuth(auth, env)} (${msg})`, auth.kind === 'key' ? { keyFile: auth.path } : undefined))
      }
      if (e.level === 'client-timeout') {
        return finish(new SshError('connect', `${label}: timed out while connecting (no answer within ${cfg.readyTimeout} ms)`))
      }
      finish(new SshError('connect', `${label}: cannot connect: ${socketProblem(e as NodeJS.ErrnoException, target.host, port, msg)}`))
    }
    const onClose = () => finish(hostKeyError ?? new SshError('connect', `${label}: the server closed the connection during login`))
    client.on('ready', onReady).on('error', onError).on('close', onClose)
    try {
      client.connect(cfg)
    } catch (e) {
      finish(new SshError('connect', `${label}: cannot connect: ${scrubSecrets((e as Error).message, secrets)}`))
    }
  })
}
