// `p4lab run` on a local testbed (the simulator) ended by `kill` (SIGTERM) or by its terminal
// closed (SIGHUP), as Ctrl-C ends it: the runs under way are cancelled and recorded so, none is
// left `running` for a later p4lab to mark interrupted, and the exit status is 128 + the signal's
// number. The built bin in a child process, sent the real signal while a run is running.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, TINY_YAML, withDb } from '../helpers/cli'
import { start, stateReached } from '../helpers/terminal'

// Three runs one at a time, each long enough to be caught running.
const LONG = TINY_YAML.replace('name: tiny', 'name: signalled').replace('schemes: [ecmp]', 'schemes: [ecmp, rps, conga]').replace('flows: 40', 'flows: 4000')

describe('p4lab run: SIGTERM and SIGHUP', { timeout: 300_000 }, () => {
  it.each([
    ['SIGTERM', 'kill', 143],
    ['SIGHUP', 'its terminal closed', 129],
  ] as const)('%s (%s) while a run is running cancels the runs under way and records them cancelled', async (sig, _how, code) => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-sig-'))
    writeFileSync(join(dir, 'long.yaml'), LONG)
    const db = join(dir, 's.db')
    const terminal = sig === 'SIGHUP'
    const p = start([process.execPath, BIN, 'run', 'long.yaml', '--db', db, '--parallel', '1'], { cwd: dir, env: { ...process.env, P4LAB_HOME: join(dir, 'home') }, terminal })
    await stateReached(db, (d) => d.prepare("SELECT COUNT(*) FROM runs WHERE status = 'running'").pluck().get() === 1, p.ended)
    if (terminal) p.hangUp()
    else p.kill('SIGTERM')
    const r = await p.ended
    const statuses = withDb(db, (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all() as string[])
    expect([r.code, r.signal], r.output).toEqual([code, null])
    expect(statuses).toHaveLength(3)
    // The run caught running may just have finished; every other is cancelled, none left open.
    expect(statuses.filter((s) => s !== 'done').every((s) => s === 'cancelled'), statuses.join(', ')).toBe(true)
    expect(statuses).toContain('cancelled')
    if (!terminal) expect(r.output).toContain(`p4lab: ${sig}: cancelling...`)
    const errors = withDb(db, (d) => d.prepare("SELECT error FROM runs WHERE status = 'cancelled'").pluck().all())
    expect(errors.every((e) => !/interrupted|cut off/.test(String(e))), errors.join('\n')).toBe(true)
  })
})
