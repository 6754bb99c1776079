// The archive importer under fuzz: a real archive (test/fixtures/archive/tiny.tar.gz) taken
// apart and rebuilt wrong in many ways, from raw bytes to a database changed row by row with
// manifest.json made to agree, then imported through the same API the CLI uses. A refusal
// (ArchiveRefusedError) is the clear error; anything else thrown is a crash.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { ArchiveRefusedError, commitImport, prepareImport } from '../../src-main/core/archive'
import { openStore } from '../../src-main/core/store'
import { tarBytes, type CraftEntry } from '../../test/archive/craft'
import { mutateBytes, mutateText, type Harness, type Rng } from './engine'

/** The plain files of a ustar archive, in order (what export writes: no links, short paths). */
function entriesOf(tar: Buffer): CraftEntry[] {
  const out: CraftEntry[] = []
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512)
    if (h.every((b) => b === 0)) break
    const str = (from: number, len: number) => h.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '')
    const prefix = str(345, 155)
    const path = prefix ? `${prefix}/${str(0, 100)}` : str(0, 100)
    const size = parseInt(str(124, 12).trim(), 8)
    const type = str(156, 1) || '0'
    out.push({ path, data: Buffer.from(tar.subarray(at + 512, at + 512 + size)), type: type as CraftEntry['type'] })
    at += 512 + Math.ceil(size / 512) * 512
  }
  return out
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const dataOf = (e: CraftEntry) => (typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0)))

/** manifest.json rewritten to list the files as they now are. */
function relisted(entries: CraftEntry[]): CraftEntry[] {
  const m = JSON.parse(dataOf(entries[0]).toString('utf8'))
  m.files = entries.slice(1).map((e) => ({ path: e.path, sha256: sha(dataOf(e)), bytes: dataOf(e).length }))
  return [{ ...entries[0], data: JSON.stringify(m) }, ...entries.slice(1)]
}

/** Statements that change the archive's database as a crafted one would. */
const SQL = [
  'UPDATE flows SET run_id = run_id - 4 WHERE rowid % 3 = 0',
  'UPDATE series SET run_id = -3',
  'UPDATE sample_chunks SET series_id = series_id + 1000 WHERE rowid = 1',
  'UPDATE runs SET experiment_id = 99',
  'INSERT INTO experiments (name, spec, tags, created_at) SELECT name || "2", spec, tags, created_at FROM experiments',
  'DELETE FROM experiments',
  "UPDATE runs SET stats = '{broken'",
  "UPDATE runs SET params = 'null', facts = '[1,'",
  "UPDATE runs SET status = 'running'",
  "UPDATE experiments SET spec = 'name: [unclosed'",
  "UPDATE experiments SET tags = '{}'",
  "UPDATE sample_chunks SET t = x'00', v = x'0102'",
  'UPDATE sample_chunks SET n = -5',
  "INSERT INTO artifacts (hash, target, program, compiler, options, outputs, log, created_at) VALUES ('aa', 'bmv2', 'p', 'c', '{}', 'not json', '', 'x')",
  "INSERT INTO artifacts (hash, target, program, compiler, options, outputs, log, created_at) VALUES ('bb', 'bmv2', 'p', 'c', '{}', '[1]', '', 'x')",
  'DROP TABLE flows',
  'DROP TABLE events; CREATE TABLE events (run_id, x)',
  'PRAGMA user_version = 999',
  'PRAGMA user_version = 1',
  'UPDATE runs SET id = id + 1000000000000',
  'UPDATE runs SET id = -id; UPDATE flows SET run_id = -run_id; UPDATE series SET run_id = -run_id; UPDATE events SET run_id = -run_id; UPDATE logs SET run_id = -run_id',
  "UPDATE flows SET size_bytes = 'x', fct_ns = NULL",
  "UPDATE logs SET line = x'ff00fe'",
  'DELETE FROM runs',
  "UPDATE runs SET completion = '{\"flows\": \"many\"}'",
]

export function archiveHarness(root: string): Harness<Buffer> {
  const gz = readFileSync(join(root, 'test', 'fixtures', 'archive', 'tiny.tar.gz'))
  const tar = gunzipSync(gz)
  const base = entriesOf(tar)
  const work = mkdtempSync(join(tmpdir(), 'p4lab-fuzz-archive-'))
  const limits = { maxEntries: 200, maxBytes: 64 * 1024 * 1024 }
  let n = 0

  const sqlMutated = (r: Rng): CraftEntry[] => {
    const i = base.findIndex((e) => e.path === 'data/p4lab.sqlite')
    const file = join(work, 'm.sqlite')
    writeFileSync(file, dataOf(base[i]))
    const db = new Database(file)
    try {
      db.pragma('foreign_keys = OFF')
      for (let k = 0, m = 1 + r.below(2); k < m; k++) {
        try {
          db.exec(r.pick(SQL))
        } catch {
          // a statement the schema does not allow: the next one still changes something
        }
      }
    } finally {
      db.close()
    }
    const out = [...base]
    out[i] = { ...base[i], data: readFileSync(file) }
    return relisted(out)
  }

  return {
    name: 'archive (import of a tar.gz)',
    next: (r) => {
      const what = r.below(10)
      if (what === 0) return Buffer.from(mutateBytes(r, gz))
      if (what === 1) return gzipSync(mutateBytes(r, tar), { level: 1 })
      if (what <= 3) {
        // A header field: path, type, declared size (the checksum is recomputed by tarBytes).
        const entries = base.map((e) => ({ ...e }))
        const e = entries[r.below(entries.length)]
        const k = r.below(3)
        if (k === 0) e.path = mutateText(r, e.path, ['/', '..', '.', '//', 'data/', 'manifest.json', '\\', 'C:'], []).slice(0, 99) || 'x'
        else if (k === 1) e.type = r.pick(['1', '2', '5', '0'] as const)
        else e.size = r.below(2) === 0 ? r.below(dataOf(e).length + 1) : dataOf(e).length + 1 + r.below(4096)
        return gzipSync(tarBytes(r.chance(0.5) ? relisted(entries) : entries), { level: 1 })
      }
      if (what <= 5) {
        // One file's content (manifest.json itself, or another with the manifest made to agree).
        const entries = [...base]
        const i = r.below(entries.length)
        const e = entries[i]
        const text = /\.(json|yaml|csv|md|txt|svg)$/.test(e.path)
        entries[i] = { ...e, data: text ? mutateText(r, dataOf(e).toString('utf8'), ['{', '}', '"', ',', ':', '[', ']', 'null', '-1', '1e999'], []) : Buffer.from(mutateBytes(r, dataOf(e))) }
        return gzipSync(tarBytes(i === 0 ? entries : relisted(entries)), { level: 1 })
      }
      if (what <= 8) return gzipSync(tarBytes(sqlMutated(r)), { level: 1 })
      // Entries left out, repeated or reordered.
      const entries = [...base]
      const i = r.below(entries.length)
      const j = r.below(entries.length)
      if (r.chance(0.4)) entries.splice(i, 1)
      else if (r.chance(0.5)) entries.splice(i, 0, entries[j])
      else [entries[i], entries[j]] = [entries[j], entries[i]]
      return gzipSync(tarBytes(entries), { level: 1 })
    },
    run: async (input) => {
      const file = join(work, `in-${n++ % 4}.tar.gz`)
      writeFileSync(file, input)
      const prepared = await prepareImport(file, limits)
      const home = mkdtempSync(join(work, 'home-'))
      try {
        const store = openStore(join(home, 'p4lab.db'))
        try {
          commitImport(prepared, store, home)
        } finally {
          store.close()
        }
      } finally {
        prepared.dispose()
        rmSync(home, { recursive: true, force: true })
      }
    },
    clear: (err) => err instanceof ArchiveRefusedError,
    show: (b) => `${b.length} bytes of gzip, sha256 ${sha(b)}`,
    close: () => rmSync(work, { recursive: true, force: true }),
  }
}
