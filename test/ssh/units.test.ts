import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FileSecretStore, SecretStoreError } from '../../src-main/core/secrets'
import {
  KnownHosts,
  LineSplitter,
  backoffDelay,
  cmd,
  fingerprint,
  hostLabel,
  hostsFieldMatches,
  isAliveState,
  keyTypeOf,
  knownHostsLine,
  parseKnownHosts,
  parseProcStat,
  scrubSecrets,
} from '../../src-main/core/ssh'

const tmp = () => mkdtempSync(join(tmpdir(), 'p4lab-unit-'))

function newKey(dir: string, name: string): { line: string; key: Buffer; path: string } {
  const path = join(dir, name)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path], { stdio: 'ignore' })
  const line = readFileSync(path + '.pub', 'utf8').trim()
  return { line, key: Buffer.from(line.split(' ')[1], 'base64'), path }
}

describe('known_hosts parsing and matching', () => {
  const d = tmp()
  const k1 = newKey(d, 'k1')
  const k2 = newKey(d, 'k2')

  it('computes fingerprints and key types as ssh-keygen does', () => {
    const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', k1.path + '.pub'], { encoding: 'utf8' })
    expect(printed.split(' ')[1]).toBe(fingerprint(k1.key))
    expect(fingerprint(k1.key)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/)
    expect(keyTypeOf(k1.key)).toBe('ssh-ed25519')
    expect(() => keyTypeOf(Buffer.from('xx'))).toThrow()
  })

  it('names hosts as OpenSSH does', () => {
    expect(hostLabel('Box.Example', 22)).toBe('box.example')
    expect(hostLabel('10.0.0.1', 2222)).toBe('[10.0.0.1]:2222')
  })

  it('parses markers, comments, lists and junk without misreading any of them', () => {
    const text = [
      '# a comment',
      '',
      `a.example,b.example ${k1.line}`,
      `@revoked c.example ${k2.line}`,
      `@cert-authority *.example ${k2.line}`,
      `@weird d.example ${k2.line}`,
      'e.example ssh-ed25519 not-base64!',
      `f.example ssh-rsa ${k1.line.split(' ')[1]}`, // type does not match the key
      `[g.example]:2222\t${k1.line}\r`,
    ].join('\n')
    const lines = parseKnownHosts(text, 'F')
    expect(lines.map((l) => [l.line, l.marker, l.hosts])).toEqual([
      [3, '', 'a.example,b.example'],
      [4, 'revoked', 'c.example'],
      [5, 'cert-authority', '*.example'],
      [9, '', '[g.example]:2222'],
    ])
  })

  it('matches patterns, negations and hashed entries (cross-checked with ssh-keygen)', () => {
    expect(hostsFieldMatches('a,b', 'b')).toBe(true)
    expect(hostsFieldMatches('*.lab,!bad.lab', 'ok.lab')).toBe(true)
    expect(hostsFieldMatches('*.lab,!bad.lab', 'bad.lab')).toBe(false)
    expect(hostsFieldMatches('10.0.0.?', '10.0.0.7')).toBe(true)
    expect(hostsFieldMatches('10.0.0.?', '10.0.0.17')).toBe(false)
    expect(hostsFieldMatches('A.Lab', 'a.lab')).toBe(true)
    expect(hostsFieldMatches('[h]:2222', '[h]:2222')).toBe(true)
    expect(hostsFieldMatches('h', '[h]:2222')).toBe(false)
    expect(hostsFieldMatches('a.b', 'axb')).toBe(false) // '.' is literal

    // Our hashed line is found by ssh-keygen -F; ssh-keygen -H's line is found by us.
    const f = join(d, 'kh-hash')
    writeFileSync(f, knownHostsLine('10.1.2.3', 2200, k1.key) + '\n')
    expect(execFileSync('ssh-keygen', ['-F', '[10.1.2.3]:2200', '-f', f], { encoding: 'utf8' })).toContain('ssh-ed25519')
    const g = join(d, 'kh-plain')
    writeFileSync(g, `[10.9.8.7]:2201 ${k2.line}\nbox.lab ${k1.line}\n`)
    execFileSync('ssh-keygen', ['-H', '-f', g], { stdio: 'ignore' })
    const hashed = parseKnownHosts(readFileSync(g, 'utf8'), g)
    expect(hashed.every((l) => l.hosts.startsWith('|1|'))).toBe(true)
    expect(hostsFieldMatches(hashed[0].hosts, '[10.9.8.7]:2201')).toBe(true)
    expect(hostsFieldMatches(hashed[0].hosts, '10.9.8.7')).toBe(false)
    expect(hostsFieldMatches(hashed[1].hosts, 'box.lab')).toBe(true)
  })

  it('verifies: known, unknown (with other types), changed (with lines), revoked', async () => {
    const f = join(d, 'kh-verify')
    writeFileSync(f, `# x\nbox.lab ${k1.line}\n@revoked * ${k2.line}\n`)
    const kh = new KnownHosts({ file: f })
    expect(await kh.verify('box.lab', 22, k1.key)).toMatchObject({ status: 'known', ref: { line: 2, file: f } })
    expect(await kh.verify('other.lab', 22, k1.key)).toMatchObject({ status: 'unknown', otherKnown: [] })
    expect(await kh.verify('box.lab', 22, k2.key)).toMatchObject({ status: 'revoked', ref: { line: 3 } })
    const k3 = newKey(d, 'k3')
    const v = await kh.verify('box.lab', 22, k3.key)
    expect(v).toMatchObject({ status: 'changed', expected: [{ line: 2, fingerprint: fingerprint(k1.key) }] })
    const err = await kh.check('box.lab', 22, k3.key)
    expect(err?.message).toBe(
      `the host key of box.lab has changed: expected ${fingerprint(k1.key)}, got ${fingerprint(k3.key)}; ` +
        `if this is expected, remove line 2 of ${f} (if it is not, someone may be intercepting the connection)`,
    )
    await expect(kh.trust('box.lab', 22, k2.key)).rejects.toThrow(/@revoked/)
    // The known key type goes first in what we offer, as ssh(1) does.
    expect((await kh.hostKeyAlgorithms('box.lab', 22))[0]).toBe('ssh-ed25519')
  })

  it('forget removes the host from its lines and leaves the rest', async () => {
    const f = join(d, 'kh-forget')
    writeFileSync(f, `a.lab,b.lab ${k1.line}\n${knownHostsLine('a.lab', 22, k2.key)}\nc.lab ${k1.line}\n`)
    const kh = new KnownHosts({ file: f })
    expect(await kh.forget('a.lab', 22)).toBe(2)
    expect(readFileSync(f, 'utf8')).toBe(`b.lab ${k1.line}\nc.lab ${k1.line}\n`)
  })

  it('appends after a file that lacks a final newline, and creates its folder', async () => {
    const f = join(d, 'sub', 'known_hosts')
    const kh = new KnownHosts({ file: f })
    await kh.trust('x.lab', 22, k1.key, { hashed: false })
    writeFileSync(f, readFileSync(f, 'utf8').trimEnd())
    await kh.trust('y.lab', 22, k1.key, { hashed: false })
    expect(readFileSync(f, 'utf8')).toBe(`x.lab ssh-ed25519 ${k1.key.toString('base64')}\ny.lab ssh-ed25519 ${k1.key.toString('base64')}\n`)
  })
})

describe('command lines', () => {
  it('quotes every argument and validates env names', () => {
    expect(cmd(['echo', 'a b', "it's"])).toBe(`echo 'a b' "it's"`)
    expect(cmd(['ls'], { cwd: '/x y', env: { A: '$B' } })).toBe(`cd -- '/x y' && A=\\$B ls`)
    expect(() => cmd([])).toThrow(/empty/)
  })
})

describe('helpers', () => {
  it('backoff grows, is capped, and jitters within [base/2, base]', () => {
    const lo = () => 0
    const hi = () => 1
    const o = { initialMs: 100, maxMs: 1000, factor: 2 }
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, o, hi))).toEqual([100, 200, 400, 800, 1000, 1000])
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, o, lo))).toEqual([50, 100, 200, 400, 500, 500])
    expect(backoffDelay(3, o, () => 0.5)).toBe(300)
  })

  it('splits lines across chunks and UTF-8 boundaries', () => {
    const out: string[] = []
    const s = new LineSplitter((l) => out.push(l))
    const bytes = Buffer.from('a\r\nbé\nc', 'utf8')
    for (let i = 0; i < bytes.length; i++) s.push(bytes.subarray(i, i + 1))
    s.end()
    expect(out).toEqual(['a', 'bé', 'c'])
  })

  it('parses /proc/<pid>/stat with awkward command names', () => {
    expect(parseProcStat('42 (a) b) c) Z 1 40 40 0 -1 4194560')).toEqual({ pid: 42, comm: 'a) b) c', state: 'Z', ppid: 1, pgrp: 40, session: 40 })
    expect(parseProcStat('garbage')).toBeUndefined()
    expect(isAliveState('S')).toBe(true)
    expect(isAliveState('Z')).toBe(false)
    expect(isAliveState('X')).toBe(false)
  })

  it('scrubs secrets', () => {
    expect(scrubSecrets('bad pw hunter2!', ['hunter2', undefined])).toBe('bad pw ***!')
  })
})

describe('FileSecretStore', () => {
  it('keeps secrets in a 0600 file, and refuses a file others can read', async () => {
    const d = tmp()
    const p = join(d, 'nested', 'secrets.json')
    const s = new FileSecretStore(p)
    expect(await s.get('a')).toBeUndefined()
    await Promise.all([s.set('a', 'one'), s.set('b', 'two'), s.set('c', 'three')])
    expect(statSync(p).mode & 0o777).toBe(0o600)
    expect(await s.get('b')).toBe('two')
    await s.delete('b')
    expect(await s.get('b')).toBeUndefined()
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual({ a: 'one', c: 'three' })
    expect(await s.get('toString')).toBeUndefined()

    chmodSync(p, 0o640)
    const err = await s.get('a').catch((e) => e)
    expect(err).toBeInstanceOf(SecretStoreError)
    expect(err.message).toBe(`the secret file ${p} has mode 0640, so others can read it; p4lab refuses to use it. Make it private with: chmod 600 ${p}`)
    await expect(s.set('d', 'x')).rejects.toThrow(/mode 0640/)

    chmodSync(p, 0o600)
    writeFileSync(p, '{"a": "sekrit", oops')
    const bad = await s.get('a').catch((e) => e)
    expect(bad.message).toMatch(/not valid JSON/)
    expect(bad.message).not.toContain('sekrit')
  })
})
