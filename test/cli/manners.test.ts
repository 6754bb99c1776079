// The CLI's manners, as a user meets them: a closed pipe, `show` in human units, a --where
// value no run has, CSV numbers at their real precision, a CI from one seed, and an archive
// re-packed with `tar -C dir .`. The built bin on real files and a real SQLite store.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { t as listTar } from 'tar'
import { beforeAll, describe, expect, it } from 'vitest'
import { atPs, csvField } from '../../src-main/core/archive/csv'
import { formatValue } from '../../src-main/core/compare/format'
import { BIN, p4lab } from '../helpers/cli'
import { tarGz, type CraftEntry } from '../archive/craft'

const TINY = `name: manners
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, hula]
workload: { kind: web-search, load: [0.3], flows: 40 }
seeds: [1]
`

let dir: string
let db: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-manners-'))
  db = join(dir, 'm.db')
  writeFileSync(join(dir, 'manners.yaml'), TINY)
  const r = p4lab(['run', 'manners.yaml', '--db', db], dir)
  expect(r.code, r.stderr).toBe(0)
}, 120_000)

/** Runs the bin with its stdout on a pipe whose reading end is already closed (as after `| head` quit). */
function intoClosedPipe(args: string[]): { code: number; stderr: string } {
  const script = [
    'import os, subprocess, sys, json',
    'r, w = os.pipe()',
    'os.close(r)',
    'p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, env=dict(os.environ, P4LAB_HOME=os.getcwd()))',
    'print(json.dumps({"code": p.returncode, "stderr": p.stderr.decode()}))',
  ].join('\n')
  const r = spawnSync('python3', ['-c', script, process.execPath, BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as { code: number; stderr: string }
}

describe('a closed pipe', () => {
  it('ends `list`, `show` and `compare` quietly, with their own exit code and no stack trace', () => {
    for (const args of [['list'], ['show', '1'], ['compare', 'manners', '--json']]) {
      const r = intoClosedPipe([...args, '--db', db])
      expect(r.stderr, args.join(' ')).toBe('')
      expect(r.code, args.join(' ')).toBe(0)
    }
  })
})

describe('p4lab show', () => {
  it('prints counters in their units and events one per line; --json keeps the raw numbers', () => {
    const r = p4lab(['show', '2', '--db', db], dir)
    expect(r.code, r.stderr).toBe(0)
    const line = (name: string) => r.stdout.split('\n').find((l) => l.trim().startsWith(`${name} `)) ?? ''
    expect(line('goodputBps')).toMatch(/^\s+goodputBps\s+\d+(\.\d+)? Gb\/s$/)
    expect(line('simTimeNs')).toMatch(/^\s+simTimeNs\s+\d+(\.\d+)? ms$/)
    expect(line('payloadBytesDelivered')).toMatch(/ (k|M|G)B$/)
    expect(line('drops')).toMatch(/^\s+drops\s+\d[\d\u2009]*$/)
    // The deepest queues are bytes too, as payloadBytesDelivered is.
    for (const name of ['maxQueueBytesTorUp', 'maxQueueBytesTorDown', 'maxQueueBytesCore', 'switchLinkBytes']) expect(line(name), name).toMatch(/ (\d+ B|[\d.]+ (k|M|G)B)$/)
    // What the run ran with, in units too; and no line about unfinished flows when every flow finished.
    const topology = r.stdout.split('\n').find((l) => l.startsWith('  topology  '))!
    expect(topology).toContain('hostLinkBps 10.0 Gb/s')
    expect(topology).toContain('linkDelayNs 1.00 µs')
    expect(r.stdout).toMatch(/\nflows {5}40 of 40 flows finished \(0 failed, 0 unfinished\)\ncreated /)
    const events = r.stdout.slice(r.stdout.indexOf('\nevents\n'))
    expect(events).not.toMatch(/[{}"]/)
    expect(events).toMatch(/\n {2}\d\d:\d\d:\d\d\.\d{3} +status +queued → deploying\n/)
    // HULA's best-hop changes, at their simulated time, as the text the scheme wrote.
    expect(events).toMatch(/\n {2}\d\d:\d\d:\d\d\.\d{3} +t=[\d.]+ (ns|µs|ms) +hula\.bestHop +leaf\d dst leaf\d: \d -> \d/)
    const json = JSON.parse(p4lab(['show', '2', '--db', db, '--json'], dir).stdout)
    expect(typeof json.counters.goodputBps).toBe('number')
    expect(json.counters.goodputBps).toBeGreaterThan(1e9)
  })
})

describe('p4lab compare --where', () => {
  it('names the values there are when a value matches no run, and exits 1 when nothing matched', () => {
    const r = p4lab(['compare', 'manners', '--db', db, '--where', 'scheme = rsp'], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("p4lab: --where: no scheme 'rsp'; schemes in the runs compared: ecmp, hula")
    const load = p4lab(['compare', 'manners', '--db', db, '--where', 'load > 0.5'], dir)
    expect(load.code).toBe(1)
    expect(load.stderr).toContain('no run has load > 0.5; loads in the runs compared: 0.3')
  })

  it('still answers, exit 0, when part of the query matches, and says which part did not', () => {
    const r = p4lab(['compare', 'manners', '--db', db, '--where', 'scheme = rsp or scheme = hula', '--json'], dir)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).matched).toBe(1)
    expect(r.stderr).toContain("no scheme 'rsp'")
  })
})

describe('p4lab compare --cdf', () => {
  it('prints each CDF at its percentiles after the table: FCT per scheme and load, slowdown per flow size too', () => {
    const fct = p4lab(['compare', 'manners', '--db', db, '--cdf', 'fct'], dir)
    expect(fct.code, fct.stderr).toBe(0)
    const plain = p4lab(['compare', 'manners', '--db', db], dir).stdout
    expect(fct.stdout.startsWith(plain)).toBe(true)
    const cdf = fct.stdout.slice(plain.length)
    expect(cdf).toMatch(/\nCDF of FCT, seeds pooled/)
    expect(cdf).toMatch(/\nscheme +load +p10 +p25 +p50 +p75 +p90 +p99 +p99\.9 +max\n/)
    expect(cdf).toMatch(/\necmp +0\.3( +[\d.]+ (ns|us|ms|s)){8}\n/)
    expect(cdf).toMatch(/\nhula +0\.3( +[\d.]+ (ns|us|ms|s)){8}\n/)
    // The text agrees with --json: the p50 read off the points.
    const json = JSON.parse(p4lab(['compare', 'manners', '--db', db, '--cdf', 'fct', '--json'], dir).stdout)
    const ecmp = json.cdfs.find((c: { line: { scheme: string } }) => c.line.scheme === 'ecmp')
    const p50 = ecmp.points.find(([, p]: [number, number]) => p === 0.5)[0] as number
    const row = cdf.split('\n').find((l) => l.startsWith('ecmp'))!.trim().split(/ {2,}/)
    expect(row[4]).toBe(formatValue(p50, 'ns'))

    const sd = p4lab(['compare', 'manners', '--db', db, '--cdf', 'slowdown'], dir)
    expect(sd.code, sd.stderr).toBe(0)
    expect(sd.stdout).toMatch(/\nCDF of FCT slowdown per flow size/)
    expect(sd.stdout).toMatch(/\nscheme +load +flow size +p10 /)
    const section = sd.stdout.slice(sd.stdout.indexOf('\nCDF of'))
    const ecmpRows = section.split('\n').filter((l) => l.startsWith('ecmp '))
    expect(ecmpRows.map((l) => l.split(/ {2,}/)[2])).toEqual(['<10 KB', '10–100 KB', '100 KB–1 MB', '1–10 MB', '≥10 MB'])
    expect(ecmpRows.filter((l) => /( +[\d.]+x){8}$/.test(l)).length).toBeGreaterThan(0)
  })
})

describe('p4lab compare with one seed', () => {
  it('prints the CI as n/a (1 seed), not lo = hi = mean', () => {
    const r = p4lab(['compare', 'manners', '--db', db], dir)
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout.split('\n').filter((l) => /^(ecmp|hula) /.test(l))
    expect(rows).toHaveLength(2)
    // The FCT's slowdown beside it (FCT over the ideal FCT on the idle fabric: at least 1).
    for (const row of rows) expect(row).toMatch(/^\S+ +0\.3 +1 +[\d.]+ (ns|us|ms|s) +n\/a \(1 seed\) +n\/a +\d+(\.\d+)?x$/)
  })
})

describe('CSV numbers', () => {
  it('prints fields at their real precision (no float noise), integers in full', () => {
    expect(csvField(33466.39999999991)).toBe('33466.4')
    expect(csvField(0.1 + 0.2)).toBe('0.3')
    expect(csvField(12409817342.574074)).toBe('12409817342.6')
    expect(csvField(0.123456789012345)).toBe('0.123456789012')
    expect(csvField(9007199254740991)).toBe('9007199254740991')
    expect(csvField(atPs(2950419.4 - 2906757))).toBe('43662.4')
    expect(csvField(atPs(1.0005))).toBe('1.001')
  })

  it('flows.csv of an export has times with at most the picosecond digits', () => {
    const out = join(dir, 'csv.tar.gz')
    const exported = p4lab(['export', 'manners', '--db', db, '-o', out], dir)
    expect(exported.code).toBe(0)
    // Its size in a unit, not a count of bytes to read digit by digit.
    expect(exported.stdout).toMatch(/^wrote .*csv\.tar\.gz: 2 runs, \d+ files, [\d.]+ (kB|MB)\n$/)
    const x = join(dir, 'csv')
    mkdirSync(x)
    expect(spawnSync('tar', ['-xzf', out, '-C', x]).status).toBe(0)
    const lines = readFileSync(join(x, 'data', 'flows.csv'), 'utf8').trim().split('\r\n')
    expect(lines[0]).toBe('run,flow,src,dst,size_bytes,start_ns,finish_ns,fct_ns,slowdown')
    expect(lines.length).toBeGreaterThan(40)
    let fractional = 0
    for (const l of lines.slice(1)) {
      for (const f of l.split(',').slice(5, 8)) {
        expect(f, l).toMatch(/^(\d+(\.\d{1,3})?)?$/)
        if (f.includes('.')) fractional++
      }
    }
    // The check looks at real fractions (simulated times fall between nanoseconds).
    expect(fractional).toBeGreaterThan(0)
  })
})

describe('an archive re-packed with tar -C dir .', () => {
  let unpacked: string
  beforeAll(() => {
    const out = join(dir, 'orig.tar.gz')
    expect(p4lab(['export', 'manners', '--db', db, '-o', out], dir).code).toBe(0)
    unpacked = join(dir, 'unpacked')
    mkdirSync(unpacked)
    expect(spawnSync('tar', ['-xzf', out, '-C', unpacked]).status).toBe(0)
  })

  it('imports: the ./ prefix and the ./ entry are read as the archive root', async () => {
    const repacked = join(dir, 'repacked.tar.gz')
    expect(spawnSync('tar', ['-czf', repacked, '-C', unpacked, '.']).status).toBe(0)
    const names: string[] = []
    await listTar({ file: repacked, onReadEntry: (e) => names.push(e.path) })
    expect(names).toContain('./')
    expect(names).toContain('./manifest.json')
    const target = join(dir, 'repacked.db')
    const r = p4lab(['import', repacked, '--db', target], dir)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/imported manners as experiment 1 \(2 runs/)
    const list = p4lab(['list', '--db', target, '--json'], dir)
    expect(JSON.parse(list.stdout)[0].runs.map((x: { scheme: string }) => x.scheme)).toEqual(['ecmp', 'hula'])
  })

  it("keeps every safety check under the ./ prefix: '..', '././', a doubled file, a file named '.'", async () => {
    const entries: CraftEntry[] = []
    await listTar({
      file: join(dir, 'orig.tar.gz'),
      onReadEntry: (e) => {
        const chunks: Buffer[] = []
        e.on('data', (c: Buffer) => chunks.push(c))
        e.on('end', () => entries.push({ path: `./${e.path}`, data: Buffer.concat(chunks) }))
      },
    })
    const cases: Array<[string, CraftEntry[], RegExp]> = [
      ['dotdot', [{ path: './../escaped-manners.txt', data: 'x' }, ...entries], /"\.\/\.\.\/escaped-manners\.txt": a '\.\.' segment/],
      ['dotdot-inner', [...entries, { path: './data/../../escaped-manners.txt', data: 'x' }], /a '\.\.' segment/],
      ['dot-twice', [...entries, { path: '././extra.txt', data: 'x' }], /"\.\/\.\/extra\.txt": an empty or '\.' segment/],
      ['twice', [...entries, { path: 'manifest.json', data: '{}' }], /"manifest\.json": it appears twice/],
      ['dot-file', [{ path: '.', data: 'x' }, ...entries], /"\.": a file named '\.'/],
    ]
    for (const [name, list, why] of cases) {
      const file = join(dir, `${name}.tar.gz`)
      writeFileSync(file, tarGz(list))
      const target = join(dir, `${name}.db`)
      const r = p4lab(['import', file, '--db', target], dir)
      expect(r.code, name).toBe(1)
      expect(r.stderr, name).toMatch(/archive refused/)
      expect(r.stderr, name).toMatch(why)
      expect(existsSync(target), name).toBe(false)
    }
    expect(existsSync(join(dir, 'escaped-manners.txt'))).toBe(false)
  })
})
