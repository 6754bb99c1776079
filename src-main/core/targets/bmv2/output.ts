// simple_switch_CLI session transcripts → one result per command sent.
//
// What the real transcripts (test/fixtures/bmv2/cli-*.txt) show, and all this relies on:
// - a preamble ("Obtaining JSON from switch...", "Done", "Control utility ...") then one
//   `RuntimeCmd: ` prompt before each command's output, with no newline between prompts
//   (a command that prints nothing leaves `RuntimeCmd: RuntimeCmd: `), and one more prompt
//   at the end of input;
// - failures are text, the exit code is 0 anyway: `Error: ...`, `Invalid <what> operation
//   (CODE)` (possibly after the command's own progress lines), `*** Unknown syntax: ...`;
// - `register_read R I` → `R[I]= V`; `register_read R` → `register index omitted, reading
//   entire array` then `R= v0, v1, ...`; `counter_read C I` → `C[I]= (B bytes, P packets)`;
//   `table_add` → `Entry has been added with handle H`; `mc_node_create` → `node was
//   created with handle H`; `mc_mgrp_create G` → `Creating multicast group G`;
//   `table_num_entries T` → a number;
// - no switch on the port: `Could not connect to thrift client on port N` and no prompt.
// So the outputs are matched to the commands in order, by counting prompts.

export const CLI_PROMPT = 'RuntimeCmd: '

export type CliErrorKind = 'error' | 'invalid-operation' | 'unknown-syntax' | 'unexpected-output' | 'no-answer'

export interface CliError {
  kind: CliErrorKind
  message: string
  /** For `Invalid <what> operation (CODE)`: what and CODE (e.g. table, DUPLICATE_ENTRY). */
  what?: string
  code?: string
}

export type CliValue =
  | { type: 'register'; register: string; index: number; value: number }
  | { type: 'register-array'; register: string; values: number[] }
  | { type: 'counter'; counter: string; index: number; bytes: number; packets: number }
  | { type: 'entry-handle'; table: string; handle: number }
  | { type: 'mc-node-handle'; handle: number }
  | { type: 'mc-group'; group: number }
  | { type: 'count'; count: number }

export interface CliCommandResult {
  /** 0-based position in the commands sent. */
  index: number
  command: string
  /** The command's output, the text between its prompt and the next. */
  output: string
  ok: boolean
  error: CliError | null
  value: CliValue | null
}

export interface CliSession {
  /** Text before the first prompt. */
  preamble: string
  /** Set when the CLI never reached the switch; every command then has a no-answer error. */
  connectError: string | null
  results: CliCommandResult[]
  /** Results that failed, in order. */
  failures: CliCommandResult[]
}

/**
 * The CLI's stdin for these commands. A command is one line: no newline, not blank and
 * not a comment (the CLI would read a blank line or `#…` as a command of its own and the
 * prompts would no longer line up with what was sent).
 */
export function cliInput(commands: readonly string[]): string {
  for (const [i, c] of commands.entries()) {
    if (/[\r\n]/.test(c)) throw new RangeError(`CLI command ${i + 1} contains a newline`)
    if (c.trim() === '' || c.trim().startsWith('#')) throw new RangeError(`CLI command ${i + 1} is blank or a comment`)
  }
  return commands.map((c) => c.trim()).join('\n') + '\n'
}

const NUM = '(-?\\d+)'
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function errorOf(output: string): CliError | null {
  let m = /^\*\*\* Unknown syntax: (.*)$/m.exec(output)
  if (m) return { kind: 'unknown-syntax', message: `Unknown syntax: ${m[1]}` }
  m = /^Invalid (\w[\w ]*?) operation \((\w+)\)\s*$/m.exec(output)
  if (m) return { kind: 'invalid-operation', message: m[0].trim(), what: m[1], code: m[2] }
  m = /^Error: (.*)$/m.exec(output)
  if (m) return { kind: 'error', message: m[1].trim() }
  m = /^\*\*\* (.*)$/m.exec(output)
  if (m) return { kind: 'error', message: m[1].trim() }
  return null
}

const unexpected = (message: string): CliError => ({ kind: 'unexpected-output', message })

/** The value a successful command's output carries, checked against the command itself. */
function valueOf(command: string, output: string): { value: CliValue | null; error: CliError | null } {
  const words = command.trim().split(/\s+/)
  const verb = words[0]
  const none = { value: null, error: null }
  switch (verb) {
    case 'register_read': {
      const reg = words[1] ?? ''
      if (words.length >= 3) {
        const index = Number(words[2])
        const m = new RegExp(`^${esc(reg)}\\[${esc(words[2])}\\]= ${NUM}\\s*$`, 'm').exec(output)
        if (!m) return { value: null, error: unexpected(`no "${reg}[${words[2]}]= V" line in the answer`) }
        return { value: { type: 'register', register: reg, index, value: Number(m[1]) }, error: null }
      }
      const m = new RegExp(`^${esc(reg)}= (.*)$`, 'm').exec(output)
      if (!m) return { value: null, error: unexpected(`no "${reg}= v0, v1, ..." line in the answer`) }
      const values = m[1].trim() === '' ? [] : m[1].split(',').map((v) => Number(v.trim()))
      if (values.some((v) => !Number.isInteger(v))) return { value: null, error: unexpected(`"${m[0]}" is not a list of integers`) }
      return { value: { type: 'register-array', register: reg, values }, error: null }
    }
    case 'counter_read': {
      const [, name = '', idx = ''] = words
      const m = new RegExp(`^${esc(name)}\\[${esc(idx)}\\]= \\(${NUM} bytes, ${NUM} packets\\)\\s*$`, 'm').exec(output)
      if (!m) return { value: null, error: unexpected(`no "${name}[${idx}]= (B bytes, P packets)" line in the answer`) }
      return { value: { type: 'counter', counter: name, index: Number(idx), bytes: Number(m[1]), packets: Number(m[2]) }, error: null }
    }
    case 'table_add': {
      const m = /^Entry has been added with handle (\d+)\s*$/m.exec(output)
      if (!m) return { value: null, error: unexpected('no "Entry has been added with handle H" line in the answer') }
      return { value: { type: 'entry-handle', table: words[1] ?? '', handle: Number(m[1]) }, error: null }
    }
    case 'mc_node_create': {
      const m = /^node was created with handle (\d+)\s*$/m.exec(output)
      if (!m) return { value: null, error: unexpected('no "node was created with handle H" line in the answer') }
      return { value: { type: 'mc-node-handle', handle: Number(m[1]) }, error: null }
    }
    case 'mc_mgrp_create': {
      const m = /^Creating multicast group (\d+)\s*$/m.exec(output)
      if (!m) return { value: null, error: unexpected('no "Creating multicast group G" line in the answer') }
      return { value: { type: 'mc-group', group: Number(m[1]) }, error: null }
    }
    case 'table_num_entries': {
      const m = /^(\d+)\s*$/.exec(output.trim())
      if (!m) return { value: null, error: unexpected('the answer is not a number') }
      return { value: { type: 'count', count: Number(m[1]) }, error: null }
    }
    default:
      return none
  }
}

/**
 * Splits a `simple_switch_CLI` transcript (stdout, stderr appended or not) into one result
 * per command, in order. Never throws on the transcript: a missing answer (the CLI stopped
 * early) is a `no-answer` error on that command and the ones after it.
 */
export function parseCliSession(commands: readonly string[], transcript: string): CliSession {
  const text = transcript.replace(/\r\n/g, '\n')
  const parts = text.split(CLI_PROMPT)
  const preamble = parts[0]
  const answers = parts.slice(1)
  let connectError: string | null = null
  if (answers.length === 0) {
    const m = /^Could not connect to thrift client on port \d+.*$/m.exec(text)
    connectError = m ? m[0].trim() : text.trim() === '' ? 'the CLI printed nothing' : `the CLI gave no prompt: ${text.trim().split('\n')[0]}`
  }
  const results: CliCommandResult[] = commands.map((command, index) => {
    const output = answers[index]
    if (output === undefined) {
      const error: CliError = {
        kind: 'no-answer',
        message: connectError ?? 'no answer: the CLI stopped before this command',
      }
      return { index, command, output: '', ok: false, error, value: null }
    }
    const err = errorOf(output)
    if (err) return { index, command, output, ok: false, error: err, value: null }
    const { value, error } = valueOf(command, output)
    return { index, command, output, ok: error === null, error, value }
  })
  return { preamble, connectError, results, failures: results.filter((r) => !r.ok) }
}

// ---------------------------------------------------------------------------------------
// Telemetry poll rounds: many reads in one CLI process (one stdin), answers keyed back.

export type PollRead =
  | { kind: 'register'; name: string; index: number }
  /** The whole array in one command. */
  | { kind: 'register'; name: string; index?: undefined }
  | { kind: 'counter'; name: string; index: number }

const NAME = /^[A-Za-z_][A-Za-z0-9_.$[\]]*$/

export function pollCommands(reads: readonly PollRead[]): string[] {
  return reads.map((r) => {
    if (!NAME.test(r.name)) throw new RangeError(`poll: bad register/counter name '${r.name}'`)
    if (r.index !== undefined && !(Number.isInteger(r.index) && r.index >= 0)) throw new RangeError(`poll: bad index ${r.index} of ${r.name}`)
    if (r.kind === 'counter') return `counter_read ${r.name} ${r.index}`
    return r.index === undefined ? `register_read ${r.name}` : `register_read ${r.name} ${r.index}`
  })
}

export const pollKey = (name: string, index: number): string => `${name}[${index}]`

export interface PollRound {
  /** Register values keyed by pollKey(register, index). */
  registers: Map<string, number>
  /** Counter values keyed by pollKey(counter, index). */
  counters: Map<string, { bytes: number; packets: number }>
  /** Reads that failed, with the CLI's reason. */
  errors: Array<{ read: PollRead; command: string; error: CliError }>
  connectError: string | null
}

/** Parses the transcript of a poll round built by pollCommands(reads). */
export function parsePollRound(reads: readonly PollRead[], transcript: string): PollRound {
  const commands = pollCommands(reads)
  const session = parseCliSession(commands, transcript)
  const round: PollRound = { registers: new Map(), counters: new Map(), errors: [], connectError: session.connectError }
  session.results.forEach((r, i) => {
    const v = r.value
    if (!r.ok || v === null) {
      round.errors.push({ read: reads[i], command: r.command, error: r.error ?? unexpected('no value') })
      return
    }
    if (v.type === 'register') round.registers.set(pollKey(v.register, v.index), v.value)
    else if (v.type === 'register-array') v.values.forEach((x, j) => round.registers.set(pollKey(v.register, j), x))
    else if (v.type === 'counter') round.counters.set(pollKey(v.counter, v.index), { bytes: v.bytes, packets: v.packets })
  })
  return round
}
