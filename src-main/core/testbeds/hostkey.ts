import { Client } from 'ssh2'
import { SshError, fingerprint, keyTypeOf, socketProblem, type KnownHosts } from '../ssh'

/**
 * The host key a server presents, fetched without logging in: the handshake stops as
 * soon as the key arrives. The algorithms offered are the ones a real connection offers
 * (KnownHosts.hostKeyAlgorithms), so a server with several keys presents the same key
 * here as to Check.
 */
export async function fetchHostKey(
  knownHosts: KnownHosts,
  host: string,
  port: number,
  timeoutMs = 15_000,
): Promise<{ key: Buffer; keyType: string; fingerprint: string }> {
  const algorithms = await knownHosts.hostKeyAlgorithms(host, port)
  const client = new Client()
  return new Promise((resolve, reject) => {
    let key: Buffer | undefined
    let done = false
    const finish = (err?: Error) => {
      if (done) return
      done = true
      clearTimeout(timer)
      client.on('error', () => undefined)
      client.end()
      if (key) resolve({ key, keyType: keyTypeOf(key), fingerprint: fingerprint(key) })
      else reject(err ?? new SshError('connect', `[${host}]:${port}: the server sent no host key`))
    }
    const timer = setTimeout(
      () => finish(new SshError('connect', `${host} port ${port}: no host key within ${timeoutMs} ms`)),
      timeoutMs,
    )
    client.on('error', (e: Error) => finish(new SshError('connect', `${host} port ${port}: cannot connect: ${socketProblem(e, host, port, e.message)}`)))
    client.on('close', () => finish())
    client.connect({
      host,
      port,
      username: 'p4lab-host-key-scan',
      readyTimeout: timeoutMs,
      algorithms: { serverHostKey: algorithms as never },
      hostVerifier: ((k: Buffer, verify: (ok: boolean) => void) => {
        key = Buffer.from(k)
        verify(false)
        finish()
      }) as never,
    })
  })
}

/** `keytype base64`: how the store keeps a pinned key. */
export function storedKeyText(key: Buffer): string {
  return `${keyTypeOf(key)} ${key.toString('base64')}`
}

/** The type and fingerprint of a stored `keytype base64`, or null when it is not one. */
export function describeStoredKey(text: string | null): { keyType: string; fingerprint: string } | null {
  if (!text) return null
  const [type, b64] = text.trim().split(/\s+/)
  if (!type || !b64) return null
  try {
    const key = Buffer.from(b64, 'base64')
    return { keyType: keyTypeOf(key), fingerprint: fingerprint(key) }
  } catch {
    return null
  }
}
