// Hand-made tar.gz files for the hostile-archive tests: raw ustar headers, so an entry can
// say exactly what an attacker would write (.., absolute paths, links), which tar's own
// writer would sanitise.
import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { t as listTar } from 'tar'
import { p4lab } from '../helpers/cli'

export interface CraftEntry {
  path: string
  /** '0' file (default), '5' directory, '2' symlink, '1' hard link. */
  type?: '0' | '1' | '2' | '5'
  data?: Buffer | string
  linkpath?: string
  /** Declared size when it should differ from the data (never used for real bytes). */
  size?: number
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0'
}

function header(e: CraftEntry, size: number): Buffer {
  const h = Buffer.alloc(512)
  if (Buffer.byteLength(e.path) > 100) throw new Error(`craft: path too long for a plain ustar header: ${e.path}`)
  h.write(e.path, 0, 100, 'utf8')
  h.write(octal(e.type === '5' ? 0o755 : 0o644, 8), 100, 8, 'ascii')
  h.write(octal(0, 8), 108, 8, 'ascii')
  h.write(octal(0, 8), 116, 8, 'ascii')
  h.write(octal(size, 12), 124, 12, 'ascii')
  h.write(octal(1_700_000_000, 12), 136, 12, 'ascii')
  h.write('        ', 148, 8, 'ascii')
  h.write(e.type ?? '0', 156, 1, 'ascii')
  if (e.linkpath) h.write(e.linkpath, 157, 100, 'utf8')
  h.write('ustar\0', 257, 6, 'ascii')
  h.write('00', 263, 2, 'ascii')
  let sum = 0
  for (const b of h) sum += b
  h.write(octal(sum, 7) + ' ', 148, 8, 'ascii')
  return h
}

/** The tar bytes of the entries (uncompressed). */
export function tarBytes(entries: CraftEntry[]): Buffer {
  const parts: Buffer[] = []
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0))
    const size = e.type === '2' || e.type === '1' || e.type === '5' ? 0 : data.length
    parts.push(header(e, e.size ?? size))
    if (size > 0) {
      parts.push(data)
      const pad = (512 - (size % 512)) % 512
      if (pad) parts.push(Buffer.alloc(pad))
    }
  }
  parts.push(Buffer.alloc(1024))
  return Buffer.concat(parts)
}

export function tarGz(entries: CraftEntry[]): Buffer {
  return gzipSync(tarBytes(entries))
}

/** A real archive to build hostile ones from: a tiny sim run exported by the CLI, in a fresh temp dir. */
export async function genuineArchive(name: string): Promise<{ dir: string; entries: CraftEntry[] }> {
  const dir = mkdtempSync(join(tmpdir(), `p4lab-${name}-`))
  writeFileSync(
    join(dir, 'tiny.yaml'),
    `name: ${name}
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 20 }
seeds: [1]
`,
  )
  const run = p4lab(['run', 'tiny.yaml', '--db', 'a.db'], dir)
  if (run.code !== 0) throw new Error(`the base run failed: ${run.stderr}`)
  const exp = p4lab(['export', name, '--db', 'a.db', '-o', 'good.tar.gz'], dir)
  if (exp.code !== 0) throw new Error(`the base export failed: ${exp.stderr}`)
  const entries: CraftEntry[] = []
  await listTar({
    file: join(dir, 'good.tar.gz'),
    onReadEntry: (e) => {
      const chunks: Buffer[] = []
      e.on('data', (c: Buffer) => chunks.push(c))
      e.on('end', () => entries.push({ path: e.path, data: Buffer.concat(chunks) }))
    },
  })
  return { dir, entries }
}

export const bytesOf = (e: CraftEntry) => (typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0)))
export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** The entries with manifest.json rewritten to list every other one with its true hash and size, plus `extra`. */
export function relisted(entries: CraftEntry[], extra: Array<{ path: string; sha256: string; bytes: number }> = []): CraftEntry[] {
  const m = JSON.parse(String(entries.find((e) => e.path === 'manifest.json')!.data))
  m.files = [...entries.filter((e) => e.path !== 'manifest.json').map((e) => ({ path: e.path, sha256: sha256(bytesOf(e)), bytes: bytesOf(e).length })), ...extra]
  return entries.map((e) => (e.path === 'manifest.json' ? { ...e, data: JSON.stringify(m) } : e))
}
