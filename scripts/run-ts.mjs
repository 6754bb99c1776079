#!/usr/bin/env node
// Runs a TypeScript entry (a benchmark, the reproduce script) under plain node: the
// project has no TS runner, so bundle it with rolldown (vite's bundler, installed) and
// import the bundle (CommonJS: entries must not use top-level await). Packages stay external, and the bundle is written inside the
// project (.cache/) so they resolve from node_modules.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** Bundles and runs `entry`; it sees `args` as its own command-line arguments. */
export async function runTs(entry, args = []) {
  const input = isAbsolute(entry) ? entry : join(root, entry)
  mkdirSync(join(root, '.cache'), { recursive: true })
  const dir = mkdtempSync(join(root, '.cache', 'run-ts-'))
  const out = join(dir, 'entry.cjs')
  try {
    await build({
      input,
      platform: 'node',
      logLevel: 'warn',
      external: (id) => !id.startsWith('.') && !isAbsolute(id),
      // CommonJS, so packages that are CommonJS (ssh2, better-sqlite3) keep all their exports.
      output: { file: out, format: 'cjs' },
    })
    process.env.P4LAB_ROOT ??= root
    process.argv = [process.argv[0], input, ...args]
    await import(pathToFileURL(out).href)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const entry = process.argv[2]
  if (!entry) {
    console.error('usage: node scripts/run-ts.mjs FILE.ts [args...]')
    process.exit(2)
  }
  await runTs(entry, process.argv.slice(3))
}
