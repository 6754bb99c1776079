// `npm run fuzz [-- --count N] [--seed S] [--only NAME]`: every harness for N inputs each
// (default 1,000,000), printing inputs tried and crashes found; exit 1 when any crashed.
import { parseArgs } from 'node:util'
import { fuzz } from './engine'
import { allHarnesses } from './harnesses'

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { count: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' } } })
  const count = Number(values.count ?? 1_000_000)
  const seed = Number(values.seed ?? 1)
  const root = process.env.P4LAB_ROOT ?? process.cwd()
  let crashed = 0
  for (const h of allHarnesses(root)) {
    if (values.only && !h.name.startsWith(values.only)) {
      h.close?.()
      continue
    }
    try {
      const rep = await fuzz(h, { count, seed, progress: (d) => process.stderr.write(`  ${h.name}: ${d} inputs\r`) })
      crashed += rep.crashes
      process.stdout.write(`${rep.name}: ${rep.inputs} inputs (seed ${rep.seed}), ${rep.crashes} crashes, ${rep.seconds.toFixed(1)} s\n`)
      for (const d of rep.distinct) process.stdout.write(`  ${d.count}× ${d.message}\n    first at input ${d.first}: ${d.input}\n`)
    } finally {
      h.close?.()
    }
  }
  return crashed > 0 ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`fuzz: ${(err as Error).stack ?? String(err)}\n`)
    process.exit(2)
  },
)
