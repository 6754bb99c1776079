// Imports that stay bounded: what a hostile archive could make an import do to time, memory,
// disk, the user's other runs and the compile cache, each against a real `p4lab import` (a
// child process, so its peak RSS, file-size limit and signals are its own) or the core API.
import { spawn, spawnSync } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { once } from 'node:events'
import { createGzip, gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { importArchive } from '../../src-main/core/archive'
import { LocalRunner, P4Builder } from '../../src-main/core/p4build'
import { openStore } from '../../src-main/core/store'
import { fakeCompiler } from '../p4build/fake-compiler'
import { BIN, p4lab } from '../helpers/cli'
import { bytesOf, genuineArchive, relisted, sha256 as sha, tarBytes, tarGz, type CraftEntry } from './craft'

const MB = 1024 * 1024

let dir: string
let genuine: CraftEntry[]

beforeAll(async () => {
  ;({ dir, entries: genuine } = await genuineArchive('bounded-base'))
}, 180_000)


/** The entries with `replaced` swapped in and manifest.json listing `extra` too, with true hashes. */
function rewritten(replaced: Record<string, Buffer>, extra: Array<{ path: string; sha256: string; bytes: number }> = []): CraftEntry[] {
  return relisted(
    genuine.map((e) => (replaced[e.path] ? { ...e, data: replaced[e.path] } : e)),
    extra,
  )
}

/** Writes gzip(head, then `zeros` bytes of zeros, then tail) to `file` without holding it in memory. */
async function gzipStream(file: string, head: Buffer, zeros: number, tail: Buffer = Buffer.alloc(0)): Promise<void> {
  const gz = createGzip({ level: 1 })
  const out = createWriteStream(file)
  gz.pipe(out)
  const write = async (b: Buffer) => {
    if (!gz.write(b)) await once(gz, 'drain')
  }
  await write(head)
  const block = Buffer.alloc(MB)
  for (let left = zeros; left > 0; left -= MB) await write(left >= MB ? block : block.subarray(0, left))
  await write(tail)
  gz.end()
  await once(out, 'close')
}

/** `p4lab import` in a child that reports its own peak RSS (KiB) on exit. */
function importMeasured(file: string, db: string, shell = '') {
  const probe = join(dir, 'maxrss.cjs')
  writeFileSync(probe, "process.on('exit', () => require('fs').writeSync(2, '\\nmaxrss ' + process.resourceUsage().maxRSS + '\\n'))\n")
  const cmd = `${shell}exec "${process.execPath}" --require "${probe}" "${BIN}" import "${file}" --db "${db}"`
  const r = spawnSync('bash', ['-c', cmd], { cwd: dir, encoding: 'utf8', env: { ...process.env, P4LAB_HOME: join(dir, 'home') }, timeout: 60_000 })
  const rss = /maxrss (\d+)/.exec(r.stderr)
  return { code: r.status, signal: r.signal, stderr: r.stderr, maxRssKiB: rss ? Number(rss[1]) : null }
}

describe('p4lab import stays bounded', () => {
  it('refuses a tar whose end marker is followed by zeros (1 GiB of them), in bounded memory', async () => {
    const file = join(dir, 'end-bomb.tar.gz')
    await gzipStream(file, tarBytes(genuine), 1024 * MB)
    // A hang guard, not a timing assert: on the buffering parser this ran for many minutes.
    const r = importMeasured(file, join(dir, 'end-bomb.db'))
    expect(r.signal, 'the import hung past the guard').toBeNull()
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/archive refused: data after the end-of-archive marker/)
    expect(r.maxRssKiB).not.toBeNull()
    console.log(`end-marker bomb: peak RSS of the import ${(r.maxRssKiB! / 1024).toFixed(1)} MiB`)
    expect(r.maxRssKiB! * 1024).toBeLessThan(100 * MB)
    expect(existsSync(join(dir, 'end-bomb.db'))).toBe(false)
  }, 120_000)

  it('accepts the zero padding that ends a tar record', () => {
    const tar = tarBytes(rewritten({}))
    const padded = Buffer.concat([tar, Buffer.alloc((10240 - (tar.length % 10240)) % 10240)])
    const file = join(dir, 'padded.tar.gz')
    writeFileSync(file, gzipSync(padded))
    const r = p4lab(['import', file, '--db', join(dir, 'padded.db')], dir)
    expect(r.code, r.stderr).toBe(0)
  })

  it('refuses an unlisted 1 GiB entry before writing a byte of it (the import may write only 32 MB)', async () => {
    const file = join(dir, 'unlisted.tar.gz')
    const entries = rewritten({})
    const before = tarBytes(entries).subarray(0, -1024)
    const header = tarBytes([{ path: 'data/huge.bin', size: 1024 * MB }]).subarray(0, 512)
    await gzipStream(file, Buffer.concat([before, header]), 1024 * MB, Buffer.alloc(1024))
    const r = importMeasured(file, join(dir, 'unlisted.db'), 'ulimit -f 32768; ')
    expect(r.signal, 'the import wrote past the file-size limit').toBeNull()
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/archive refused: "data\/huge\.bin": is in the archive but not in manifest\.json/)
  }, 120_000)

  it("refuses an archive database with rows outside the archive's runs, leaving the user's runs as they were", async () => {
    const user = join(dir, 'user.db')
    expect(p4lab(['run', 'tiny.yaml', '--db', user], dir).code).toBe(0)
    const flowsOfRun1 = () => {
      const db = new Database(user, { readonly: true })
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM flows WHERE run_id = 1').get() as { n: number }).n
      } finally {
        db.close()
      }
    }
    const before = flowsOfRun1()
    expect(before).toBeGreaterThan(0)

    const sub = join(dir, 'crafted.sqlite')
    writeFileSync(sub, bytesOf(genuine.find((e) => e.path === 'data/p4lab.sqlite')!))
    const db = new Database(sub)
    db.pragma('foreign_keys = OFF')
    const { lo } = db.prepare('SELECT MIN(id) AS lo FROM runs').get() as { lo: number }
    const userDb = new Database(user, { readonly: true })
    const { hi } = userDb.prepare('SELECT MAX(id) AS hi FROM runs').get() as { hi: number }
    userDb.close()
    // Import shifts run ids by (hi + 1 - lo): this run_id lands on the user's run 1.
    const foreign = 1 - (hi + 1 - lo)
    db.prepare('INSERT INTO flows (run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns) VALUES (?, 999999, 0, 1, 1000, 0, 1, 1)').run(foreign)
    db.close()
    const file = join(dir, 'crafted.tar.gz')
    writeFileSync(file, tarGz(rewritten({ 'data/p4lab.sqlite': readFileSync(sub) })))
    const r = p4lab(['import', file, '--db', user], dir)
    expect(r.code, r.stdout).toBe(1)
    expect(r.stderr).toMatch(/archive refused: "data\/p4lab\.sqlite": 1 row\(s\) of table flows point to a run that is not in the archive/)
    expect(flowsOfRun1()).toBe(before)
  }, 180_000)

  it('never takes a BMv2 program that came with an archive as a compile-cache hit: it compiles', async () => {
    const home = join(dir, 'cache-home')
    const store = openStore(join(home, 'p4lab.db'))
    try {
      const p4 = join(dir, 'cache-p4', 'v1model')
      mkdirSync(p4, { recursive: true })
      writeFileSync(join(p4, 'prog.p4'), '#include <core.p4>\ncontrol Ingress() { apply { } }\n')
      const fake = fakeCompiler(dir)
      const builder = new P4Builder({ store, artifactsDir: join(home, 'artifacts'), runner: new LocalRunner(fake.env()) })
      const req = { file: join(p4, 'prog.p4'), target: 'bmv2' as const }
      const { key } = await builder.key(req)

      // The archive brings artifacts/<key>/ with a poisoned program, and a row saying it compiled fine.
      const poison = Buffer.from('{"program": "poisoned", "drop_all_but": "attacker"}\n')
      const info = Buffer.from('# p4info\n')
      const sub = join(dir, 'poison.sqlite')
      writeFileSync(sub, bytesOf(genuine.find((e) => e.path === 'data/p4lab.sqlite')!))
      const db = new Database(sub)
      const outputs = { status: 'ok', exitCode: 0, files: { json: 'prog.json', p4info: 'prog.p4info.txtpb' }, diagnostics: [], sources: [], main: 'v1model/prog.p4', where: 'local', argv: [], durationMs: 1, contents: { json: sha(poison), p4info: sha(info) } }
      db.prepare("INSERT INTO artifacts (hash, target, program, compiler, options, outputs, log, created_at) VALUES (?, 'bmv2', 'prog', 'p4c-bm2-ss', '{}', ?, '', '2026-01-01T00:00:00Z')").run(key, JSON.stringify(outputs))
      db.close()
      const json = `artifacts/${key}/prog.json`
      const p4info = `artifacts/${key}/prog.p4info.txtpb`
      const entries = rewritten({ 'data/p4lab.sqlite': readFileSync(sub) }, [
        { path: json, sha256: sha(poison), bytes: poison.length },
        { path: p4info, sha256: sha(info), bytes: info.length },
      ])
      const file = join(dir, 'poison.tar.gz')
      writeFileSync(file, tarGz([...entries, { path: json, data: poison }, { path: p4info, data: info }]))
      await importArchive({ file, store, dataDir: home })
      expect(readFileSync(join(home, json), 'utf8')).toContain('poisoned')

      const r = await builder.build(req)
      expect(r.hit).toBe(false)
      expect(fake.compiles()).toHaveLength(1)
      expect(readFileSync(r.files.json, 'utf8')).toContain('"fake": true')
      // Compiled here, it is a hit from now on; changed on disk, it is compiled again.
      expect((await builder.build(req)).hit).toBe(true)
      writeFileSync(r.files.json, poison)
      const again = await builder.build(req)
      expect(again.hit).toBe(false)
      expect(fake.compiles()).toHaveLength(2)
      expect(readFileSync(again.files.json, 'utf8')).toContain('"fake": true')
    } finally {
      store.close()
    }
  }, 60_000)

  it('removes its temporary folder when the import is stopped by SIGTERM halfway through', async () => {
    const tmp = join(dir, 'tmp-sigterm')
    mkdirSync(tmp)
    const fifo = join(dir, 'slow.tar.gz')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const child = spawn(process.execPath, [BIN, 'import', fifo, '--db', join(dir, 'sigterm.db')], {
      cwd: dir,
      env: { ...process.env, P4LAB_HOME: join(dir, 'home'), TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = once(child, 'exit')
    // Half of a genuine archive, then nothing: the import waits on the pipe for the rest.
    const gz = tarGz(rewritten({}))
    const w = await open(fifo, 'w')
    await w.write(gz.subarray(0, gz.length >> 1))
    const workDir = () => readdirSync(tmp).filter((n) => n.startsWith('p4lab-import-'))
    while (!(workDir().length === 1 && existsSync(join(tmp, workDir()[0], 'manifest.json')))) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGTERM')
    const [code, signal] = await exited
    await w.close()
    expect(signal ?? code).toBe('SIGTERM')
    expect(workDir()).toEqual([])
  }, 60_000)
})
