// The build step compiling on a remote host: SshRunner against a real OpenSSH sshd on
// 127.0.0.1 (test/helpers/sshd.ts), the fake p4c-bm2-ss as the host's compiler. Sources go up
// with uploadDir, the compiler runs through SshHost.run (quoted argv), outputs come back over SFTP.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts, SshPool } from '../../src-main/core/ssh'
import { BuildFailedError, P4Builder, SshRunner } from '../../src-main/core/p4build'
import { openStore, type Store } from '../../src-main/core/store'
import { startSshd, type Sshd } from '../helpers/sshd'
import { fakeCompiler, type FakeCompiler } from './fake-compiler'

let sshd: Sshd
let dir: string
let pool: SshPool
let store: Store
let fake: FakeCompiler

beforeAll(async () => {
  sshd = await startSshd()
  dir = mkdtempSync(join(tmpdir(), 'p4lab-p4build-ssh-'))
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  pool = new SshPool({ knownHosts, secrets: new MemorySecretStore() })
  store = openStore(join(dir, 'home', 'p4lab.db'))
  fake = fakeCompiler(join(dir, 'remote'))
})
afterAll(async () => {
  store?.close()
  pool?.closeAll()
  await sshd?.stop()
})

function runner(extraEnv: Record<string, string> = {}): SshRunner {
  const host = pool.host({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
  return new SshRunner(host, {
    baseDir: join(dir, 'remote', 'work'),
    tools: { 'p4c-bm2-ss': join(fake.binDir, 'p4c-bm2-ss') },
    env: { FAKE_P4C_LOG: fake.log, ...extraEnv },
  })
}

describe('SshRunner', () => {
  it('compiles on the host, brings the outputs back, and a second build is a cache hit', async () => {
    const src = join(dir, 'my prog')
    mkdirSync(join(src, 'include'), { recursive: true })
    writeFileSync(join(src, 'main.p4'), '#include <v1model.p4>\n#include "include/h.p4"\ncontrol C() { apply {} }\n')
    writeFileSync(join(src, 'include', 'h.p4'), 'header h_t { bit<8> x; }\n')
    const b = new P4Builder({ store, artifactsDir: join(dir, 'home', 'artifacts'), runner: runner() })
    const first = await b.build({ file: join(src, 'main.p4'), target: 'bmv2' })
    expect(first.hit).toBe(false)
    expect(first.artifact.outputs.where).toBe(`ssh ${sshd.user}@[${sshd.host}]:${sshd.port}`)
    expect(JSON.parse(readFileSync(first.files.json, 'utf8'))).toEqual({ program: 'main.p4', fake: true })
    expect(existsSync(first.files.p4info)).toBe(true)
    expect(fake.compiles()).toEqual(['--p4v 16 --p4runtime-files ../out/main.p4info.txtpb -o ../out/main.json main.p4'])
    // The remote work directory is removed after the build.
    expect(readdirSync(join(dir, 'remote', 'work'))).toEqual([])

    const second = await b.build({ file: join(src, 'main.p4'), target: 'bmv2' })
    expect(second).toMatchObject({ hit: true, key: first.key })
    expect(fake.compiles()).toHaveLength(1)
  })

  it('a remote compile error is stored with its diagnostics', async () => {
    const file = join(dir, 'broken.p4')
    writeFileSync(file, readFileSync(join(import.meta.dirname, '../fixtures/bmv2/broken.p4')))
    const b = new P4Builder({
      store,
      artifactsDir: join(dir, 'home', 'artifacts'),
      runner: runner({ FAKE_P4C_STDERR: join(import.meta.dirname, '../fixtures/bmv2/p4c-errors.txt'), FAKE_P4C_EXIT: '1' }),
    })
    const err = await b.build({ file, target: 'bmv2' }).catch((e) => e)
    expect(err).toBeInstanceOf(BuildFailedError)
    expect(err.message).toMatch(/broken\.p4:14:26: error: undeclaredPort/)
    expect(store.getArtifact(err.artifact.hash)!.outputs.diagnostics[0]).toMatchObject({ file: 'broken.p4', line: 14, column: 26 })
  })

  it('a tool the host does not have is named', async () => {
    const host = pool.host({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
    const b = new P4Builder({ store, artifactsDir: join(dir, 'home', 'artifacts'), runner: new SshRunner(host, { tools: { 'bf-p4c': '/nonexistent/bf-p4c' } }) })
    const err = await b.build({ file: join(dir, 'broken.p4'), target: 'tofino' }).catch((e) => e)
    expect(err.message).toMatch(/bf-p4c was not found on .*127\.0\.0\.1/)
  })
})
