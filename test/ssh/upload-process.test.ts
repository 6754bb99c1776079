import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts, RemoteProcesses, SshPool, uploadDir, type SshHost } from '../../src-main/core/ssh'
import { groupMembers, startSshd, type Sshd } from '../helpers/sshd'

let sshd: Sshd
let dir: string
let pool: SshPool
let h: SshHost

beforeAll(async () => {
  sshd = await startSshd()
  dir = mkdtempSync(join(tmpdir(), 'p4lab-up-'))
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  pool = new SshPool({ knownHosts, secrets: new MemorySecretStore() })
  h = pool.host({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
})
afterAll(async () => {
  // Even when a test failed half-way, leave no process behind.
  for (const run of ['run-1', 'run-2', 'run-3', 'run-4']) await new RemoteProcesses(h, run, { baseDir: join(dir, 'runs'), graceMs: 500 }).stopAll().catch(() => undefined)
  pool?.closeAll()
  await sshd?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Live (non-zombie) members of a group, seen from the test itself via /proc. */
const liveInGroup = (pgid: number) => groupMembers(pgid).filter((m) => m.state !== 'Z' && m.state !== 'X')

describe('SFTP upload of a folder', () => {
  it('creates folders, preserves modes, then skips unchanged files and sends a changed one', async () => {
    const src = join(dir, 'src')
    mkdirSync(join(src, 'p4', 'include'), { recursive: true })
    mkdirSync(join(src, 'empty dir'), { recursive: true })
    writeFileSync(join(src, 'p4', 'hula.p4'), '#include "include/headers.p4"\ncontrol C() {}\n')
    writeFileSync(join(src, 'p4', 'include', 'headers.p4'), 'header h_t { bit<8> x; }\n')
    writeFileSync(join(src, 'agent.py'), '#!/usr/bin/env python3\nprint("hi")\n')
    chmodSync(join(src, 'agent.py'), 0o755)
    writeFileSync(join(src, "we'ird $(name) *.txt"), 'x\n')
    writeFileSync(join(src, 'big.bin'), Buffer.alloc(300_000, 7))
    chmodSync(join(src, 'big.bin'), 0o640)
    symlinkSync('agent.py', join(src, 'link.py'))
    const dest = join(dir, 'remote', 'deploy dir')

    const first = await uploadDir(h, src, dest)
    const all = ['agent.py', 'big.bin', 'p4/hula.p4', 'p4/include/headers.p4', "we'ird $(name) *.txt"]
    expect(first.uploaded).toEqual(all)
    expect(first.skipped).toEqual([])
    expect(first.ignored).toEqual(['link.py'])
    expect(first.remoteHashing).toBe(true)
    expect(first.createdDirs).toEqual(expect.arrayContaining(['.', 'p4', 'p4/include', 'empty dir']))
    for (const f of all) expect(readFileSync(join(dest, f))).toEqual(readFileSync(join(src, f)))
    expect(statSync(join(dest, 'agent.py')).mode & 0o777).toBe(0o755)
    expect(statSync(join(dest, 'big.bin')).mode & 0o777).toBe(0o640)
    expect(existsSync(join(dest, 'empty dir'))).toBe(true)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)

    // Nothing changed: nothing is sent.
    const second = await uploadDir(h, src, dest)
    expect(second.uploaded).toEqual([])
    expect(second.skipped).toEqual(all)

    // One file edited locally, one file's mode changed, one remote file tampered with.
    writeFileSync(join(src, 'p4', 'hula.p4'), 'control C() { apply { } }\n')
    chmodSync(join(src, 'big.bin'), 0o600)
    writeFileSync(join(dest, 'agent.py'), 'tampered\n')
    const third = await uploadDir(h, src, dest)
    expect(third.uploaded).toEqual(['agent.py', 'p4/hula.p4'])
    expect(third.skipped).toEqual(['big.bin', 'p4/include/headers.p4', "we'ird $(name) *.txt"])
    expect(third.modesFixed).toEqual(['big.bin'])
    expect(readFileSync(join(dest, 'p4', 'hula.p4'), 'utf8')).toBe('control C() { apply { } }\n')
    expect(readFileSync(join(dest, 'agent.py'), 'utf8')).toContain('print("hi")')
    expect(statSync(join(dest, 'agent.py')).mode & 0o777).toBe(0o755)
    expect(statSync(join(dest, 'big.bin')).mode & 0o777).toBe(0o600)
    // No temporary files left behind.
    const leftovers = (await h.check(['find', dest, '-name', '*.p4lab-*'])).trim()
    expect(leftovers).toBe('')
  })
})

describe('detached processes', () => {
  it('starts a process group, finds it alive, stops the whole group, and leaves nothing', async () => {
    const runs = join(dir, 'runs')
    const procs = new RemoteProcesses(h, 'run-1', { baseDir: runs, graceMs: 3000 })
    const info = await procs.start('sleeper', ['sh', '-c', 'echo "up $0"; sleep 1000 & sleep 1000', 'my arg'])
    expect(info.pid).toBeGreaterThan(1)
    expect(info.pgid).toBe(info.pid)
    expect(info.pidFile).toBe(join(runs, 'run-1', 'sleeper.pid'))
    expect(readFileSync(info.pidFile, 'utf8').trim()).toBe(String(info.pid))

    // Two sleeps and the sh, all in the group, which the leader leads.
    let s = await procs.status('sleeper')
    for (let i = 0; i < 50 && s.members.length < 3; i++) {
      await sleep(100)
      s = await procs.status('sleeper')
    }
    expect(s.alive).toBe(true)
    expect(s.state).toMatch(/^[RS]$/)
    expect(s.members.length).toBe(3)
    expect(liveInGroup(info.pgid).map((m) => m.pid).sort((a, b) => a - b)).toEqual(s.members)
    expect(await procs.list()).toEqual(['sleeper'])
    expect(await procs.readLog('sleeper')).toBe('up my arg\n')
    // readLogFrom: a byte range of the log, empty past its end or for a log not written yet.
    expect((await procs.readLogFrom('sleeper', 3, 2)).toString('utf8')).toBe('my')
    expect((await procs.readLogFrom('sleeper', 3, 1000)).toString('utf8')).toBe('my arg\n')
    expect((await procs.readLogFrom('sleeper', 10, 1000)).length).toBe(0)
    expect((await procs.readLogFrom('nothing-yet', 0, 1000)).length).toBe(0)
    await expect(procs.readLogFrom('sleeper', -1, 10)).rejects.toThrow(/offset/)

    // A second start under the same name is refused while it runs.
    await expect(procs.start('sleeper', ['sleep', '1'])).rejects.toThrow(/already running/)

    const stopped = await procs.stop('sleeper')
    expect(stopped.signalled).toBe('TERM')
    expect(liveInGroup(info.pgid)).toEqual([])
    const after = await procs.status('sleeper')
    expect(after.alive).toBe(false)
    expect(after.members).toEqual([])
    expect((await procs.stop('sleeper')).signalled).toBe('none')
  })

  it('escalates to KILL for a group that ignores TERM', async () => {
    const procs = new RemoteProcesses(h, 'run-2', { baseDir: join(dir, 'runs'), graceMs: 300 })
    const info = await procs.start('stubborn', ['sh', '-c', "trap '' TERM; sh -c \"trap '' TERM; sleep 1000\" & sleep 1000; wait"])
    let s = await procs.status('stubborn')
    for (let i = 0; i < 50 && s.members.length < 4; i++) {
      await sleep(100)
      s = await procs.status('stubborn')
    }
    expect(s.alive).toBe(true)
    const r = await procs.stop('stubborn')
    expect(r.signalled).toBe('KILL')
    expect(liveInGroup(info.pgid)).toEqual([])
  })

  it('reports a zombie as not alive', async () => {
    const procs = new RemoteProcesses(h, 'run-3', { baseDir: join(dir, 'runs') })
    const runDir = join(dir, 'runs', 'run-3')
    // The parent writes its child's pid as the "zombie" pid file, then becomes a sleep that
    // never reaps: the child, once it exits, stays a zombie.
    await procs.start('parent', ['sh', '-c', 'sleep 0.2 & echo $! > "$0"; exec sleep 1000', join(runDir, 'zombie.pid')])
    let z = await procs.status('zombie')
    for (let i = 0; i < 100 && z.state !== 'Z'; i++) {
      await sleep(100)
      z = await procs.status('zombie')
    }
    expect(z.pid).toBeGreaterThan(1)
    expect(z.state).toBe('Z')
    expect(z.alive).toBe(false)
    const results = await procs.stopAll()
    expect(results.map((r) => r.name).sort()).toEqual(['parent', 'zombie'])
    const parentPid = Number(readFileSync(join(runDir, 'parent.pid'), 'utf8'))
    expect(liveInGroup(parentPid)).toEqual([])
  })

  it('stopAll tears down every process of a run; hostile names and arguments are refused or quoted', async () => {
    const procs = new RemoteProcesses(h, 'run-4', { baseDir: join(dir, 'runs') })
    const a = await procs.start('a', ['sleep', '1000'], { env: { P4LAB_T: "x'y" } })
    const b = await procs.start('b', ['sh', '-c', 'printf "%s|%s\\n" "$1" "$P4LAB_T"; exec sleep 1000', 'sh', `$(touch ${join(dir, 'pwned')})`], {
      cwd: dir,
      env: { P4LAB_T: '`id`' },
    })
    expect((await procs.status('a')).alive).toBe(true)
    expect((await procs.status('b')).alive).toBe(true)
    const res = await procs.stopAll()
    expect(res.map((r) => r.signalled)).toEqual(['TERM', 'TERM'])
    expect(liveInGroup(a.pgid)).toEqual([])
    expect(liveInGroup(b.pgid)).toEqual([])
    expect(await procs.readLog('b')).toBe(`$(touch ${join(dir, 'pwned')})|\`id\`\n`)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(() => new RemoteProcesses(h, '../etc')).toThrow(/run id/)
    await expect(procs.start('x;rm', ['true'])).rejects.toThrow(/process name/)
    await expect(procs.start('-x', ['true'])).rejects.toThrow(/process name/)
  })
})
