// The built p4lab bin in a child process, with its own P4LAB_HOME: the CLI as a user runs it.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { ROOT } from './start'

export const BIN = join(ROOT, 'bin', 'p4lab.cjs')

export interface CliOptions {
  /** P4LAB_HOME; default `<cwd>/home`. */
  home?: string
  /** Added to the environment. */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

export function p4lab(args: string[], cwd: string, opts: CliOptions = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, P4LAB_HOME: opts.home ?? join(cwd, 'home'), ...opts.env },
    timeout: opts.timeoutMs ?? 180_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** {@link p4lab} without blocking the event loop: for tests whose own process serves the CLI (a core, a Slurm follower). */
export function p4labAsync(args: string[], cwd: string, opts: CliOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, P4LAB_HOME: opts.home ?? join(cwd, 'home'), ...opts.env } })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => c.kill('SIGKILL'), opts.timeoutMs ?? 180_000)
    c.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    c.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    c.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The smallest sensible sweep: one scheme, one load, one seed, 40 flows on a 2×2 leaf-spine. */
export const TINY_YAML = `name: tiny
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload:
  kind: web-search
  load: [0.3]
  flows: 40
seeds: [1]
`

/** 2 schemes × 2 loads × 2 seeds of a small leaf-spine: quick, but a real sweep. */
export const SWEEP_YAML = `name: rt-sweep
description: round-trip test sweep
tags: [paper, rt]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.6], flows: 30 }
seeds: [1, 2]
`

/** `fn` on the database file opened read-only, closed after. */
export function withDb<T>(file: string, fn: (d: Database.Database) => T): T {
  const d = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return fn(d)
  } finally {
    d.close()
  }
}

/**
 * Starts `p4lab args` in the background and kills it with SIGKILL (no clean-up at all) once
 * `ready` holds on its database, polled read-only; a database not yet created, or without its
 * schema yet, is not ready. After `maxWaitMs` it is killed anyway: the caller checks what it got.
 */
export async function killWhen(args: string[], cwd: string, db: string, ready: (d: Database.Database) => boolean, maxWaitMs = 600_000): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, P4LAB_HOME: join(cwd, 'home') }, stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const isReady = () => {
    if (!existsSync(db)) return false
    try {
      return withDb(db, ready)
    } catch {
      return false
    }
  }
  for (const end = Date.now() + maxWaitMs; Date.now() < end && !isReady(); ) await new Promise((r) => setTimeout(r, 50))
  child.kill('SIGKILL')
  await exited
}
