#!/usr/bin/env node
// The p4lab command. The TypeScript sources are bundled by `npm run build`, which
// `npm install` runs (the "prepare" script).
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const cli = join(__dirname, '..', 'out', 'main', 'cli.js')
if (!existsSync(cli)) {
  process.stderr.write(`p4lab: ${cli} is missing; run 'npm install' (or 'npm run build') in ${join(__dirname, '..')}\n`)
  process.exit(1)
}
require(cli)
