// A run's owner is a process pinned by boot id, pid and start time: another process that
// got the same pid later is not taken for it. Files that hold the lab's data are private.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { EventBus } from '../../src-main/core/bus'
import { Orchestrator, ownerIsAlive, processOwner } from '../../src-main/core/orchestrator'
import { FileSecretStore } from '../../src-main/core/secrets'
import { openStore } from '../../src-main/core/store'

const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()

/** Field 22 of /proc/PID/stat, read here on its own rather than through the code under test. */
function processStartTime(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19]
}

describe('run owners', () => {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' })
  afterAll(() => child.kill('SIGKILL'))

  it('this process is its own live owner, named by host, pid, boot id and start time', () => {
    const start = processStartTime(process.pid)
    expect(start).toMatch(/^\d+$/)
    expect(processOwner()).toBe(`${hostname()}:${process.pid}:${bootId}:${start}`)
    expect(ownerIsAlive(processOwner())).toBe(true)
  })

  it('a live process under a recorded pid is the owner only if its start time and boot match', () => {
    const pid = child.pid!
    const start = processStartTime(pid)
    expect(ownerIsAlive(`${hostname()}:${pid}:${bootId}:${start}`)).toBe(true)
    // The pid now names another process than the one that wrote the run (a reused pid).
    expect(ownerIsAlive(`${hostname()}:${pid}:${bootId}:${Number(start) + 1}`)).toBe(false)
    // Written during another boot: every process of that boot is gone.
    expect(ownerIsAlive(`${hostname()}:${pid}:00000000-0000-0000-0000-000000000000:${start}`)).toBe(false)
  })

  it('a run whose recorded pid was reused by a live process is marked interrupted, at its last heartbeat', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-owner-'))
    let clock = new Date('2026-01-02T03:04:05.000Z')
    const store = openStore(join(dir, 'o.db'), { now: () => clock })
    try {
      const exp = store.createExperiment({ name: 'o', yaml: 'name: o', spec: {}, file: null, tags: [] })
      const pid = child.pid!
      const impostor = `${hostname()}:${pid}:${bootId}:${Number(processStartTime(pid)) + 1}`
      const live = `${hostname()}:${pid}:${bootId}:${processStartTime(pid)}`
      const [cut] = store.createRuns(exp.id, 'sim', impostor, [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
      const [kept] = store.createRuns(exp.id, 'sim', live, [{ scheme: 'ecmp', load: 0.3, seed: 2, params: {} }])
      store.setRunStatus(cut.id, 'deploying')
      store.setRunStatus(cut.id, 'running')
      clock = new Date('2026-01-02T03:04:09.000Z')
      expect(store.heartbeat(impostor)).toBe(1)
      clock = new Date('2026-01-02T05:00:00.000Z')

      const orch = new Orchestrator({ store, bus: new EventBus(), drivers: {} })
      expect(orch.recoverInterrupted()).toEqual([cut.id])
      const r = store.getRun(cut.id)!
      expect(r.status).toBe('interrupted')
      expect(r.finishedAt).toBe('2026-01-02T03:04:09.000Z')
      expect(r.error).toContain('last seen alive at 2026-01-02T03:04:09.000Z')
      expect(store.getRun(kept.id)!.status).toBe('queued')
    } finally {
      store.close()
    }
  })

  it('readInterrupted (a store that cannot write) reads a gone owner\'s runs as interrupted everywhere, run counts too, and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-owner-'))
    const file = join(dir, 'r.db')
    const store = openStore(file, { now: () => new Date('2026-01-02T03:04:05.000Z') })
    try {
      const exp = store.createExperiment({ name: 'r', yaml: 'name: r', spec: {}, file: null, tags: [] })
      const gone = `${hostname()}:1:00000000-0000-0000-0000-000000000000:1`
      const [running, queued] = store.createRuns(exp.id, 'sim', gone, [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }, { scheme: 'ecmp', load: 0.3, seed: 2, params: {} }])
      store.setRunStatus(running.id, 'running')
      const [alive] = store.createRuns(exp.id, 'sim', processOwner(), [{ scheme: 'ecmp', load: 0.3, seed: 3, params: {} }])
      const stored = () => store.listRuns().map((r) => r.status)
      expect(stored()).toEqual(['running', 'queued', 'queued'])

      expect(store.readInterrupted(ownerIsAlive)).toEqual([running.id, queued.id])
      expect(stored()).toEqual(['interrupted', 'interrupted', 'queued'])
      const r = store.getRun(running.id)!
      expect(r.error).toBe(`the process that owned this run (${gone}) is gone; it was last seen alive at 2026-01-02T03:04:05.000Z (not recorded: the database is read-only here)`)
      expect(r.finishedAt).toBe('2026-01-02T03:04:05.000Z')
      expect(store.getRun(alive.id)!.status).toBe('queued')
      expect(store.listExperiments()[0].runCounts).toMatchObject({ running: 0, queued: 1, interrupted: 2 })
      // The file still holds what was stored.
      const raw = new Database(file, { readonly: true })
      try {
        expect(raw.prepare('SELECT status FROM runs ORDER BY id').pluck().all()).toEqual(['running', 'queued', 'queued'])
      } finally {
        raw.close()
      }
    } finally {
      store.close()
    }
  })
})

describe('private files', () => {
  it('a new database, its WAL files and its folder are readable by their owner only', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'p4lab-modes-')), 'new', 'data')
    const file = join(dir, 'p4lab.sqlite')
    const store = openStore(file)
    try {
      const exp = store.createExperiment({ name: 'm', yaml: 'name: m', spec: {}, file: null, tags: [] })
      store.createRuns(exp.id, 'sim', processOwner(), [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600')
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('700')
    } finally {
      store.close()
    }
  })

  it('the secret file is created 0600', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'p4lab-modes-')), 'home', 'secrets.json')
    await new FileSecretStore(file).set('ssh:passphrase:a/b', 'hunter2')
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600')
  })
})
