// Several p4lab processes writing one database at once: every one finishes every run. Before
// writes began IMMEDIATE, a read-then-write transaction got SQLITE_BUSY at once (its snapshot
// was stale, so the busy timeout never applied) and the process died with its runs left open.
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { BIN } from '../helpers/cli'

const WRITERS = 3

const sweep = (name: string) => `name: ${name}
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.6], flows: 40 }
seeds: [1, 2, 3]
telemetry: { interval: 20us }
`

function runCli(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, P4LAB_HOME: join(cwd, 'home') }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    c.on('exit', (code) => resolve({ code, stderr }))
  })
}

describe('one store, many processes', () => {
  it(`${WRITERS} concurrent 'p4lab run' processes on one database all finish every run`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-writers-'))
    const db = join(dir, 'shared.db')
    for (let i = 0; i < WRITERS; i++) writeFileSync(join(dir, `w${i}.yaml`), sweep(`writer-${i}`))
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => runCli(['run', `w${i}.yaml`, '--db', db, '--parallel', '1'], dir)),
    )
    for (const [i, r] of results.entries()) {
      expect(r.stderr, `writer ${i}`).not.toMatch(/database is locked|SQLITE_BUSY/)
      expect(r.code, `writer ${i}: ${r.stderr}`).toBe(0)
    }
    const d = new Database(db, { readonly: true })
    try {
      const rows = d.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status').all() as Array<{ status: string; n: number }>
      expect(Object.fromEntries(rows.map((r) => [r.status, r.n]))).toEqual({ done: WRITERS * 12 })
    } finally {
      d.close()
    }
  }, 600_000)
})
