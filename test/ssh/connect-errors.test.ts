// A host p4lab cannot reach says why in words a lab engineer acts on: nothing listening on the
// port, a name that does not resolve. The socket's errno stays in the message, in parentheses.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { utils } from 'ssh2'
import { describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts, connect, type SshTarget } from '../../src-main/core/ssh'
import { fetchHostKey } from '../../src-main/core/testbeds/hostkey'
import { dropper } from '../helpers/dropper'

const dir = mkdtempSync(join(tmpdir(), 'p4lab-connect-errors-'))
const key = join(dir, 'id_ed25519')
writeFileSync(key, utils.generateKeyPairSync('ed25519').private, { mode: 0o600 })
const opts = { knownHosts: new KnownHosts({ file: join(dir, 'known_hosts') }), secrets: new MemorySecretStore(), readyTimeout: 10_000 }
const target = (host: string, port: number): SshTarget => ({ host, port, user: 'root', auth: { kind: 'key', path: key } })

/** A port on 127.0.0.1 nothing listens on: one the kernel gave out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('connect to a host it cannot reach', () => {
  it('says nothing listens on the port, and asks about sshd and the port', async () => {
    const port = await closedPort()
    await expect(connect(target('127.0.0.1', port), opts)).rejects.toThrow(
      `root@[127.0.0.1]:${port}: cannot connect: nothing listens on port ${port} there (connection refused: connect ECONNREFUSED 127.0.0.1:${port}); is sshd running, and is the port right?`,
    )
  })

  it('says a host name does not resolve, naming it', async () => {
    await expect(connect(target('nosuchhost.invalid', 22), opts)).rejects.toThrow(
      /^root@nosuchhost\.invalid: cannot connect: the name 'nosuchhost\.invalid' does not resolve \(getaddrinfo (ENOTFOUND|EAI_AGAIN) nosuchhost\.invalid\); is it spelled right\?$/,
    )
  })

  it('says the same when fetching the host key to pin it (testbed trust)', async () => {
    const port = await closedPort()
    await expect(fetchHostKey(opts.knownHosts, '127.0.0.1', port)).rejects.toThrow(
      `127.0.0.1 port ${port}: cannot connect: nothing listens on port ${port} there (connection refused: connect ECONNREFUSED 127.0.0.1:${port}); is sshd running, and is the port right?`,
    )
  })

  it('says the connection closed before the SSH handshake, and asks whether it is an SSH server', async () => {
    // Something that takes the connection and drops it at once, as a firewall or another service can.
    const host = await dropper()
    const { port } = host
    try {
      await expect(connect(target('127.0.0.1', port), opts)).rejects.toThrow(
        `root@[127.0.0.1]:${port}: cannot connect: the connection closed before the SSH handshake (Connection lost before handshake); is it an SSH server that answers on port ${port}, or does a firewall cut the connection?`,
      )
    } finally {
      await host.close()
    }
  })
})
