// `run_bfshell.sh -b script.py` output → what the script did: errors, entries read.
//
// The formats, from real sessions (test/fixtures/tofino/README.md cites them):
// - preamble: `Using SDE …`, `Connecting to localhost port 7777 …`, the bfshell banner,
//   `bfshell> bfrt_python SCRIPT`, `We've found N p4 programs for device D:` then one
//   program name per line, `Devices found :  [0]`, the Python/IPython banner; the script's
//   output; `bfshell> exit` when bfshell got to the end of its input;
// - an entry printed by `.get(...)` / `dump()`:
//       Entry 0:
//       Entry key:
//           $REGISTER_INDEX                : 0x00000008
//       Entry data:
//           Egress.codel_egress.codel_drop_state.f1 : [512, 512, 512, 512]
//   (key values in hex; a register's data field holds one value per pipe);
//   `Entry data (action : NAME):` for a match table;
// - a failed call that bfrt_python only prints (get returns -1):
//       Error: table_entry_get failed on table pipe.X.y. [Invalid arguments]
// - a failed call that raises (add/mod/del): an IPython traceback ending in
//       BfRtTableError: Error: table_entry_mod failed on table pipe.X.y. [Invalid arguments]
//   or other exceptions (`NameError: name 'x' is not defined`, …);
// - a value bfrt_python cannot parse: `ERROR: Can`t parse data in mod function. …`;
// - driver log lines: `2024-08-14 19:17:32.809985 BF_BFRT ERROR - …`.
// Counters read by `get(COUNTER_INDEX=i)` print data fields `$COUNTER_SPEC_BYTES` and
// `$COUNTER_SPEC_PKTS` (their documented names; no real printout was found, see the README).

export type BfshellErrorKind = 'bfrt-error' | 'exception' | 'parse-error'

export interface BfshellError {
  kind: BfshellErrorKind
  /** 1-based line in the output. */
  line: number
  message: string
  /** For `Error: OP failed on table T. [STATUS]`. */
  operation?: string
  table?: string
  status?: string
  /** For an exception: its class (BfRtTableError, NameError, …). */
  exception?: string
}

export type BfrtValue = number | bigint | string | Array<number | bigint>

export interface BfrtEntry {
  line: number
  key: Record<string, BfrtValue>
  data: Record<string, BfrtValue>
  action: string | null
}

export interface BfshellOutput {
  sde: string | null
  programs: string[]
  devices: number[]
  /** bfshell reached `exit` after running the script. */
  completed: boolean
  errors: BfshellError[]
  /** `BF_xxx ERROR - …` lines of the driver, which may come at any time. */
  driverErrors: Array<{ line: number; module: string; message: string }>
  entries: BfrtEntry[]
}

function parseValue(raw: string): BfrtValue {
  const v = raw.trim()
  const one = (s: string): number | bigint | null => {
    const t = s.trim()
    if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(t)) return null
    const b = BigInt(t)
    return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b
  }
  if (v.startsWith('[') && v.endsWith(']')) {
    const inner = v.slice(1, -1).trim()
    if (inner === '') return []
    const parts = inner.split(',').map(one)
    if (parts.every((p) => p !== null)) return parts as Array<number | bigint>
    return v
  }
  return one(v) ?? v
}

const BFRT_FAILED = /^Error: (\w+) failed on table (\S+?)\.? \[(.*)\]\s*$/
const EXCEPTION = /^([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$/
const DRIVER = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? (BF_\w+) ERROR - (.*)$/

function errorOf(text: string, line: number): BfshellError | null {
  let m = EXCEPTION.exec(text)
  if (m) {
    const inner = BFRT_FAILED.exec(m[2])
    const e: BfshellError = { kind: 'exception', line, message: m[2].replace(/^Error: /, ''), exception: m[1] }
    if (inner) Object.assign(e, { operation: inner[1], table: inner[2], status: inner[3] })
    return e
  }
  m = BFRT_FAILED.exec(text)
  if (m) return { kind: 'bfrt-error', line, message: text.slice('Error: '.length), operation: m[1], table: m[2], status: m[3] }
  m = /^Error: (.*)$/.exec(text)
  if (m) return { kind: 'bfrt-error', line, message: m[1].trim() }
  m = /^ERROR: (.*)$/.exec(text)
  if (m) return { kind: 'parse-error', line, message: m[1].trim() }
  return null
}

/** Parses the whole output of `run_bfshell.sh -b SCRIPT` (stdout and stderr together). */
export function parseBfshellOutput(text: string): BfshellOutput {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  const out: BfshellOutput = { sde: null, programs: [], devices: [], completed: false, errors: [], driverErrors: [], entries: [] }
  let ranScript = false
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    const n = i + 1
    let m: RegExpExecArray | null
    if ((m = /^Using SDE (\S+)\s*$/.exec(l))) {
      out.sde = m[1]
      continue
    }
    if (/^We've found \d+ p4 programs/.test(l)) {
      for (let j = i + 1; j < lines.length; j++) {
        const p = lines[j].trim()
        if (p === '' || /^(Creating tree|Loading|Devices found)/.test(p)) break
        out.programs.push(p)
      }
      continue
    }
    if ((m = /^Devices found\s*:\s*\[([\d,\s]*)\]/.exec(l))) {
      out.devices = m[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number)
      continue
    }
    if (/^bfshell> bfrt_python\b/.test(l)) {
      ranScript = true
      continue
    }
    if (ranScript && /^bfshell> exit\s*$/.test(l)) {
      out.completed = true
      continue
    }
    if ((m = DRIVER.exec(l.replace(/^bfshell> /, '')))) {
      out.driverErrors.push({ line: n, module: m[1], message: m[2].trim() })
      continue
    }
    if (/^Entry \d+:\s*$/.test(l) || /^Entry data( \(action : [^)]*\))?:\s*$/.test(l)) {
      const entry: BfrtEntry = { line: n, key: {}, data: {}, action: null }
      let section: 'key' | 'data' | null = null
      let j = /^Entry \d+:/.test(l) ? i + 1 : i
      for (; j < lines.length; j++) {
        const t = lines[j]
        if (/^Entry key:\s*$/.test(t)) section = 'key'
        else if ((m = /^Entry data(?: \(action : ([^)]*)\))?:\s*$/.exec(t))) {
          section = 'data'
          entry.action = m[1] ?? null
        } else if (section && (m = /^\s+(\S+)\s+: (.*)$/.exec(t))) entry[section][m[1]] = parseValue(m[2])
        else break
      }
      out.entries.push(entry)
      i = j - 1
      continue
    }
    const e = errorOf(l, n)
    if (e) out.errors.push(e)
  }
  return out
}

// ---------------------------------------------------------------------------------------
// Poll rounds: one bfrt_python script reading many register / counter cells, each read
// announced by a marker line so the answer (or the error) is tied to its read.

export type BfrtPollRead =
  /** `name` as in the P4 program under the pipe: e.g. `MyIngress.bestHop`. */
  | { kind: 'register'; name: string; index: number }
  | { kind: 'counter'; name: string; index: number }

export const POLL_MARK = 'p4lab-read'
export const POLL_DONE = 'p4lab-done'

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

/**
 * The bfrt_python script of one poll round: each register/counter table is synced from
 * the hardware once (operation_register_sync / operation_counter_sync), then every cell is
 * read with `get(REGISTER_INDEX=i, from_hw=True)` (or COUNTER_INDEX), each after a marker.
 */
export function bfrtPollScript(program: string, reads: readonly BfrtPollRead[], opts: { fromHw?: boolean } = {}): string {
  if (!IDENT.test(program) || program.includes('.')) throw new RangeError(`bfrt poll: bad program name '${program}'`)
  const fromHw = (opts.fromHw ?? true) ? 'True' : 'False'
  const lines = ['# p4lab poll round (generated)', `p = bfrt.${program}.pipe`]
  const synced = new Set<string>()
  reads.forEach((r, i) => {
    if (!IDENT.test(r.name)) throw new RangeError(`bfrt poll: bad name '${r.name}'`)
    if (!(Number.isInteger(r.index) && r.index >= 0)) throw new RangeError(`bfrt poll: bad index ${r.index} of ${r.name}`)
    const k = r.kind === 'register' ? 'REGISTER_INDEX' : 'COUNTER_INDEX'
    lines.push(`print("${POLL_MARK} ${i}")`)
    lines.push('try:')
    // Sync a table once, inside the first read of it, so its failure is that read's error.
    const key = `${r.kind}:${r.name}`
    if (!synced.has(key)) {
      synced.add(key)
      lines.push(`    p.${r.name}.operation_${r.kind}_sync()`)
    }
    lines.push(`    p.${r.name}.get(${k}=${r.index}, from_hw=${fromHw})`)
    lines.push('except Exception as e:')
    lines.push('    print("%s: %s" % (type(e).__name__, e))')
  })
  lines.push(`print("${POLL_DONE}")`)
  return lines.join('\n') + '\n'
}

export interface BfrtPollRound {
  /** Register cells, keyed by pollKey(name, index): one value per pipe. */
  registers: Map<string, Array<number | bigint>>
  counters: Map<string, { bytes: number | bigint; packets: number | bigint }>
  errors: Array<{ read: BfrtPollRead; message: string }>
  /** bfshell's own view: completed, programs, driver errors, errors outside any read. */
  session: BfshellOutput
}

export const bfrtPollKey = (name: string, index: number): string => `${name}[${index}]`

/** Ties the output of bfrtPollScript(program, reads) back to the reads. */
export function parseBfrtPollRound(reads: readonly BfrtPollRead[], text: string): BfrtPollRound {
  const session = parseBfshellOutput(text)
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  // Line ranges of each read's answer: from its marker to the next marker (or the end).
  const marks: Array<{ i: number; line: number }> = []
  let doneLine = lines.length + 1
  lines.forEach((l, k) => {
    const m = new RegExp(`^${POLL_MARK} (\\d+)\\s*$`).exec(l)
    if (m) marks.push({ i: Number(m[1]), line: k + 1 })
    else if (l.trim() === POLL_DONE) doneLine = k + 1
  })
  const round: BfrtPollRound = { registers: new Map(), counters: new Map(), errors: [], session }
  reads.forEach((read, i) => {
    const at = marks.findIndex((m) => m.i === i)
    if (at < 0) {
      round.errors.push({ read, message: session.completed ? 'no answer: the read was not reached' : 'no answer: the script stopped before this read' })
      return
    }
    const from = marks[at].line
    const to = at + 1 < marks.length ? marks[at + 1].line : doneLine
    const inRange = <T extends { line: number }>(x: T) => x.line > from && x.line < to
    const err = session.errors.find(inRange)
    if (err) {
      round.errors.push({ read, message: err.exception ? `${err.exception}: ${err.message}` : err.message })
      return
    }
    const entry = session.entries.find(inRange)
    const keyName = read.kind === 'register' ? '$REGISTER_INDEX' : '$COUNTER_INDEX'
    if (!entry || entry.key[keyName] === undefined || Number(entry.key[keyName]) !== read.index) {
      round.errors.push({ read, message: `no entry with ${keyName} = ${read.index} in the answer` })
      return
    }
    if (read.kind === 'register') {
      const field = Object.keys(entry.data).find((f) => f === `${read.name}.f1`) ?? Object.keys(entry.data)[0]
      const v = field === undefined ? undefined : entry.data[field]
      if (!Array.isArray(v)) {
        round.errors.push({ read, message: `the register's data field is not a list of per-pipe values` })
        return
      }
      round.registers.set(bfrtPollKey(read.name, read.index), v)
    } else {
      const bytes = entry.data.$COUNTER_SPEC_BYTES
      const packets = entry.data.$COUNTER_SPEC_PKTS
      const num = (x: BfrtValue | undefined): x is number | bigint => typeof x === 'number' || typeof x === 'bigint'
      if (!num(bytes) || !num(packets)) {
        round.errors.push({ read, message: 'the counter entry has no $COUNTER_SPEC_BYTES / $COUNTER_SPEC_PKTS' })
        return
      }
      round.counters.set(bfrtPollKey(read.name, read.index), { bytes, packets })
    }
  })
  return round
}

/** One number from a register's per-pipe values: the traffic of a port is in one pipe. */
export function combinePipes(values: ReadonlyArray<number | bigint>, how: 'max' | 'sum' | 'first' = 'max'): number {
  const nums = values.map(Number)
  if (nums.length === 0) return NaN
  if (how === 'first') return nums[0]
  if (how === 'sum') return nums.reduce((a, b) => a + b, 0)
  return Math.max(...nums)
}
