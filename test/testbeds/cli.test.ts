// `p4lab testbed …` and `p4lab run --testbed` as a user runs them: the built bin
// (bin/p4lab.cjs, after electron-vite build), a P4LAB_HOME temp dir, a real sshd.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fingerprint } from '../../src-main/core/ssh'
import { TINY_YAML } from '../helpers/core'
import { startSshd, type Sshd } from '../helpers/sshd'
import { ROOT } from '../helpers/start'

const BIN = join(ROOT, 'bin', 'p4lab.cjs')

let sshd: Sshd
let home: string
let cwd: string

beforeAll(async () => {
  sshd = await startSshd()
  cwd = mkdtempSync(join(tmpdir(), 'p4lab-tbcli-'))
  home = join(cwd, 'home')
})
afterAll(async () => {
  await sshd?.stop()
})

/** Runs the bin without blocking the event loop (the sshd lives in this process). */
function p4lab(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, P4LAB_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    c.on('error', reject)
    c.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('p4lab testbed', () => {
  it('add, list, check (unknown key), trust --yes, check (tools), host-add, remove', async () => {
    const hostSpec = `${sshd.user}@${sshd.host}:${sshd.port}`
    const add = await p4lab(['testbed', 'add', 'lab1', '--kind', 'bmv2', '--host', hostSpec, '--key', sshd.secretKey, '--name', 'sw1', '--passphrase-env', 'LAB_PASS'], {
      LAB_PASS: sshd.keyPassphrase,
    })
    expect(add.code, add.stderr).toBe(0)
    expect(add.stdout).toMatch(/testbed lab1 \(bmv2\)/)
    expect(add.stdout).toContain('(passphrase stored)')
    expect(readFileSync(join(home, 'p4lab.db')).includes(Buffer.from(sshd.keyPassphrase))).toBe(false)

    const dup = await p4lab(['testbed', 'add', 'lab1', '--kind', 'bmv2', '--host', hostSpec])
    expect(dup.code).toBe(2)
    expect(dup.stderr).toMatch(/a testbed named 'lab1' already exists/)
    const badPort = await p4lab(['testbed', 'add', 'x', '--kind', 'bmv2', '--host', `${sshd.host}:99999`])
    expect(badPort.code).toBe(2)
    expect(badPort.stderr).toMatch(/the port must be 1-65535/)
    const noKey = await p4lab(['testbed', 'add', 'x', '--kind', 'bmv2', '--host', hostSpec, '--key', 'nowhere/id_rsa'])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toMatch(/key file .*nowhere\/id_rsa does not exist/)

    const list = await p4lab(['testbed', 'list', '--json'])
    expect(list.code).toBe(0)
    const tbs = JSON.parse(list.stdout) as Array<{ name: string; kind: string; settings: Record<string, unknown>; hosts: Array<{ name: string; port: number }> }>
    expect(tbs.map((t) => t.name)).toEqual(['lab1', 'sim'])
    expect(tbs[0]).toMatchObject({ kind: 'bmv2', settings: { rateCeilingBps: 1e9 }, hosts: [{ name: 'sw1', port: sshd.port }] })

    const fp = fingerprint(sshd.hostKey())
    const unknown = await p4lab(['testbed', 'check', 'lab1', '--json'])
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.stdout).hosts[0]).toMatchObject({ status: 'unknown-key', hostKey: { keyType: 'ssh-ed25519', fingerprint: fp } })
    const human = await p4lab(['testbed', 'check', 'lab1'])
    expect(human.stdout).toContain(fp)
    expect(human.stdout).toContain('p4lab testbed trust lab1 --host sw1')

    // No terminal and no --yes: shown, not pinned.
    const refused = await p4lab(['testbed', 'trust', 'lab1'])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain(fp)
    expect(refused.stderr).toMatch(/no terminal to confirm on/)
    expect(existsSync(join(home, 'known_hosts'))).toBe(false)

    const trust = await p4lab(['testbed', 'trust', 'lab1', '--host', 'sw1', '--yes'])
    expect(trust.code, trust.stderr).toBe(0)
    expect(trust.stdout).toContain(`pinned ssh-ed25519 ${fp}`)
    expect(readFileSync(join(home, 'known_hosts'), 'utf8')).toMatch(/^\|1\|/)

    const check = await p4lab(['testbed', 'check', 'lab1', '--json'])
    const c = JSON.parse(check.stdout)
    expect(c.hosts[0].status).toBe('ok')
    const tools = Object.fromEntries((c.hosts[0].tools as Array<{ name: string; found: boolean; version: string | null }>).map((t) => [t.name, t]))
    expect(tools.python3.found).toBe(true)
    expect(tools.iperf3.version).toMatch(/^3\.\d+/)
    expect(tools.ip.version).toMatch(/^\d/)
    expect(check.code).toBe(c.ready ? 0 : 1)
    const text = await p4lab(['testbed', 'check', 'lab1'])
    expect(text.stdout).toMatch(/testbed lab1 \(bmv2\): (not )?ready/)
    expect(text.stdout).toMatch(/iperf3\s+yes\s+3\.\d+/)

    const hostAdd = await p4lab(['testbed', 'host-add', 'lab1', '--host', hostSpec, '--key', sshd.plainKey, '--role', 'traffic', '--name', 'gen'])
    expect(hostAdd.code, hostAdd.stderr).toBe(0)
    // The first host kept its pinned key and passphrase across the edit.
    expect(hostAdd.stdout).toMatch(/sw1 .*\(passphrase stored\)\s+ssh-ed25519 SHA256:/)
    expect(hostAdd.stdout).toMatch(/gen .*traffic/)

    const both = JSON.parse((await p4lab(['testbed', 'check', 'lab1', '--json'])).stdout)
    expect(both.hosts.map((h: { host: string; status: string }) => [h.host, h.status])).toEqual([
      ['sw1', 'ok'],
      ['gen', 'ok'],
    ])
  })

  it('trust asks y/N on a terminal: "n" pins nothing, "y" pins', async () => {
    // A fresh known_hosts for this case: the key was pinned by the test above.
    const ttyHome = mkdtempSync(join(tmpdir(), 'p4lab-tbtty-'))
    const env = { P4LAB_HOME: ttyHome }
    expect((await p4lab(['testbed', 'add', 'tty', '--kind', 'bmv2', '--host', `${sshd.user}@${sshd.host}:${sshd.port}`, '--key', sshd.plainKey, '--name', 'sw'], env)).code).toBe(0)
    /** Under script(1), so stdin is a terminal; `answer` is typed at the prompt. */
    const onTty = (answer: string) =>
      new Promise<string>((resolve, reject) => {
        const line = ['env', `P4LAB_HOME=${ttyHome}`, process.execPath, BIN, 'testbed', 'trust', 'tty'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
        const c = spawn('script', ['-qec', line, '/dev/null'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
        let out = ''
        let typed = false
        const timer = setTimeout(() => {
          c.kill()
          reject(new Error(`no answer from trust on a terminal; it printed:\n${out}`))
        }, 30_000)
        c.on('exit', () => clearTimeout(timer))
        c.stdout.on('data', (d) => {
          out += d
          if (!typed && out.includes('[y/N]')) {
            typed = true
            c.stdin.write(`${answer}\r`)
          }
        })
        c.on('error', reject)
        c.on('exit', () => resolve(out.replace(/\r/g, '')))
      })
    const no = await onTty('n')
    expect(no).toContain(fingerprint(sshd.hostKey()))
    expect(no).toMatch(/not trusted/)
    expect(existsSync(join(ttyHome, 'known_hosts'))).toBe(false)
    const yes = await onTty('y')
    expect(yes).toMatch(/pinned ssh-ed25519 SHA256:/)
    expect(readFileSync(join(ttyHome, 'known_hosts'), 'utf8')).toMatch(/^\|1\|/)
  })

  it('the BMv2 rate settings: --rate-scale fixes the scale, --no-calibrate skips the measurement, a bad scale is refused', async () => {
    const env = { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-tbrate-')) }
    const host = ['--host', `${sshd.user}@${sshd.host}:${sshd.port}`, '--key', sshd.plainKey]
    const bad = await p4lab(['testbed', 'add', 'r', '--kind', 'bmv2', ...host, '--rate-scale', '2'], env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--rate-scale: expected a number in \(0, 1\] \(BMv2 rate = fabric rate x this\), got '2'/)
    expect((await p4lab(['testbed', 'add', 't', '--kind', 'tofino', ...host, '--no-calibrate'], env)).stderr).toMatch(/--no-calibrate is for a bmv2 testbed/)
    const fixed = await p4lab(['testbed', 'add', 'r', '--kind', 'bmv2', ...host, '--rate-scale', '0.004', '--no-calibrate'], env)
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stdout).toMatch(/rate scale fixed at 0.004, no calibration/)
    const auto = await p4lab(['testbed', 'add', 'a', '--kind', 'bmv2', ...host], env)
    expect(auto.stdout).toMatch(/rate ceiling 1 ?Gbps, rate scale calibrated/)
    const tbs = JSON.parse((await p4lab(['testbed', 'list', '--json'], env)).stdout) as Array<{ name: string; settings: Record<string, unknown> }>
    expect(tbs.find((t) => t.name === 'r')!.settings).toMatchObject({ rateScale: 0.004, calibrate: false })
    expect(tbs.find((t) => t.name === 'a')!.settings).toMatchObject({ calibrate: true })
    expect(tbs.find((t) => t.name === 'a')!.settings.rateScale).toBeUndefined()
  })

  it('run --testbed overrides the file, and a run on a bmv2 testbed stops cleanly at the missing tools', async () => {
    writeFileSync(join(cwd, 'tiny.yaml'), TINY_YAML.replace('testbed: sim', 'testbed: elsewhere  # a testbed of another machine'))
    const unknown = await p4lab(['run', 'tiny.yaml'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/tiny\.yaml:2:\d+: testbed: unknown testbed 'elsewhere'; known testbeds: sim, lab1/)
    const badName = await p4lab(['run', 'tiny.yaml', '--testbed', 'nope'])
    expect(badName.code).toBe(2)
    expect(badName.stderr).toMatch(/--testbed: unknown testbed 'nope'/)

    // The bmv2 driver runs it: check → (fails here: no p4c, BMv2 on this machine) → teardown.
    const bmv2 = await p4lab(['run', 'tiny.yaml', '--testbed', 'lab1'])
    expect(bmv2.code).toBe(1)
    expect(bmv2.stderr).toMatch(/run \d+ ecmp load=0.3 seed=1: failed \(.*simple_switch, simple_switch_CLI are not installed on sw1/)
    const runId = /run (\d+) ecmp load=0.3 seed=1: failed/.exec(bmv2.stderr)![1]
    const shown = JSON.parse((await p4lab(['show', runId, '--json'])).stdout)
    const steps = shown.events.filter((e: { kind: string }) => e.kind === 'step').map((e: { detail: { step: string; state: string } }) => `${e.detail.step}:${e.detail.state}`)
    expect(steps).toEqual(['check:started', 'check:failed', 'teardown:started', 'teardown:done'])

    const sim = await p4lab(['run', 'tiny.yaml', '--testbed', 'sim', '--json'])
    expect(sim.code, sim.stderr).toBe(0)
    expect(JSON.parse(sim.stdout).runs.every((r: { status: string }) => r.status === 'done')).toBe(true)
  }, 180_000)

  it('remove', async () => {
    const r = await p4lab(['testbed', 'remove', 'lab1'])
    expect(r.code).toBe(0)
    expect((await p4lab(['testbed', 'remove', 'lab1'])).code).toBe(2)
    expect((await p4lab(['testbed', 'remove', 'sim'])).stderr).toMatch(/built in/)
    expect(JSON.parse(readFileSync(join(home, 'secrets.json'), 'utf8'))).toEqual({})
  })
})
