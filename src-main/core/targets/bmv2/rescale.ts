// The rate scale is chosen after the switches run (calibrate.ts measures them first), so a
// switch is configured in two goes: first its command file without the queue rates (the
// measurement must see what the switch forwards, not what set_queue_rate lets through: until
// it is called a queue has no rate limit, per p4lang/behavioral-model's queueing.h), then
// the commands that bring it to the file rendered at the chosen scale. Those are:
// - every set_queue_rate (and a set_queue_depth that changed);
// - every register_write, also unchanged ones: the measurement's packets may have moved the
//   registers the control plane initialises (Floodgate's windows), and a write resets them;
// - for a table whose entries depend on the scale (DHLB's load-degree bands), table_clear and
//   all its entries again: an entry cannot be replaced in place without its handle;
// - a changed table_set_default.
// Anything else that differs between the two files (multicast, mirroring) cannot be redone on a
// running switch: that is a renderer change this module does not know, and it fails loudly.

const verb = (line: string): string => line.trim().split(/\s+/)[0] ?? ''
const tableOf = (line: string): string => line.trim().split(/\s+/)[1] ?? ''

export const isQueueRate = (line: string): boolean => verb(line) === 'set_queue_rate'

/** The commands a switch gets before the calibration: all but its queue rates. */
export function withoutQueueRates(commands: readonly string[]): string[] {
  return commands.filter((c) => !isQueueRate(c))
}

function counts(lines: readonly string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const l of lines) m.set(l, (m.get(l) ?? 0) + 1)
  return m
}

/**
 * What to send a switch configured with `configured` so that it ends as if configured with
 * `final` (the full file at the chosen scale). Throws when they differ in a command that
 * cannot be redone on a running switch.
 */
export function rescaleCommands(configured: readonly string[], final: readonly string[]): string[] {
  const before = counts(configured)
  const after = counts(final)
  const changed = new Set<string>()
  for (const [l, n] of after) if (before.get(l) !== n) changed.add(l)
  for (const [l, n] of before) if (after.get(l) !== n) changed.add(l)

  const tables = new Set<string>()
  const defaults: string[] = []
  for (const l of changed) {
    const v = verb(l)
    if (v === 'table_add') tables.add(tableOf(l))
    else if (v === 'table_set_default') {
      if (!after.has(l) && !final.some((f) => verb(f) === v && tableOf(f) === tableOf(l))) {
        throw new Error(`the default action of ${tableOf(l)} goes away at the new rate scale; p4lab cannot undo a default on a running switch`)
      }
      if (after.has(l)) defaults.push(l)
    } else if (v !== 'register_write' && v !== 'set_queue_rate' && v !== 'set_queue_depth') {
      throw new Error(`\`${l}\` differs at the new rate scale; p4lab cannot redo a ${v} command on a running switch`)
    }
  }
  const out: string[] = []
  for (const t of tables) out.push(`table_clear ${t}`, ...final.filter((l) => verb(l) === 'table_add' && tableOf(l) === t))
  out.push(...defaults)
  out.push(...final.filter((l) => verb(l) === 'register_write'))
  out.push(...final.filter((l) => verb(l) === 'set_queue_depth' && changed.has(l)))
  out.push(...final.filter(isQueueRate))
  return out
}
