// The simple_switch_CLI parser against the real transcripts in test/fixtures/bmv2.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliInput, parseCliSession, parsePollRound, pollCommands, pollKey, type PollRead } from '../../src-main/core/targets/bmv2/output'

const FIX = resolve(import.meta.dirname, '../fixtures/bmv2')
const read = (f: string) => readFileSync(join(FIX, f), 'utf8')
const commands = (f: string) => read(f).split('\n').filter((l) => l !== '')

describe('simple_switch_CLI session: cli-session-ok', () => {
  const cmds = commands('cli-session-ok.cmds')
  const s = parseCliSession(cmds, read('cli-session-ok.txt'))

  it('matches one answer to each command, in order, and finds no failure', () => {
    expect(s.connectError).toBeNull()
    expect(s.preamble).toContain('Obtaining JSON from switch...')
    expect(s.results).toHaveLength(28)
    expect(s.results.map((r) => r.command)).toEqual(cmds)
    expect(s.failures).toEqual([])
  })

  it('parses every command\'s value', () => {
    const values = s.results.map((r) => [r.command, r.value])
    expect(values).toEqual([
      ['show_tables', null],
      ['show_actions', null],
      ['table_info I.nextHop', null],
      ['table_add I.dstTor I.setDstTor 10.0.1.0/24 => 1', { type: 'entry-handle', table: 'I.dstTor', handle: 0 }],
      ['table_add I.dstTor I.setDstTor 10.0.2.0/24 => 2', { type: 'entry-handle', table: 'I.dstTor', handle: 1 }],
      ['table_add I.nextHop I.forward 1 0x06&&&0xff => 3 00:00:00:00:01:03 10', { type: 'entry-handle', table: 'I.nextHop', handle: 0 }],
      ['table_add I.nextHop I.toGroup 2 0x11&&&0xff => 1 20', { type: 'entry-handle', table: 'I.nextHop', handle: 1 }],
      ['table_set_default I.nextHop I.drop', null],
      ['table_dump I.dstTor', null],
      ['table_num_entries I.dstTor', { type: 'count', count: 2 }],
      ['register_write I.bestHop 1 3', null],
      ['register_write I.bestHop 2 4', null],
      ['register_read I.bestHop 1', { type: 'register', register: 'I.bestHop', index: 1, value: 3 }],
      ['register_read I.bestHop', { type: 'register-array', register: 'I.bestHop', values: [0, 3, 4, 0, 0, 0, 0, 0] }],
      ['register_read I.pathUtil 0', { type: 'register', register: 'I.pathUtil', index: 0, value: 0 }],
      ['register_reset I.pathUtil', null],
      ['counter_read I.portPackets 0', { type: 'counter', counter: 'I.portPackets', index: 0, bytes: 0, packets: 0 }],
      ['counter_reset I.portPackets', null],
      ['mc_mgrp_create 1', { type: 'mc-group', group: 1 }],
      ['mc_node_create 0 1 2 3', { type: 'mc-node-handle', handle: 0 }],
      ['mc_node_create 1 4', { type: 'mc-node-handle', handle: 1 }],
      ['mc_node_associate 1 0', null],
      ['mc_node_associate 1 1', null],
      ['mc_dump', null],
      ['set_queue_rate 1000 1', null],
      ['set_queue_depth 64 1', null],
      ['set_queue_rate 5000', null],
      ['get_time_elapsed', null],
    ])
  })

  it('keeps each command\'s own output text (silent commands have none)', () => {
    const out = (c: string) => s.results.find((r) => r.command === c)!.output
    expect(out('register_write I.bestHop 1 3')).toBe('')
    expect(out('get_time_elapsed')).toBe('616557\n')
    expect(out('mc_dump')).toContain('mgrp(1)')
    expect(out('table_dump I.dstTor')).toContain('Dumping entry 0x1')
  })
})

describe('simple_switch_CLI session: cli-session-errors', () => {
  const cmds = commands('cli-session-errors.cmds')
  const s = parseCliSession(cmds, read('cli-session-errors.txt'))

  it('reports every failure although the CLI exited 0', () => {
    expect(s.connectError).toBeNull()
    expect(s.results).toHaveLength(10)
    expect(s.failures).toHaveLength(10)
    expect(s.results.map((r) => [r.command, r.error])).toEqual([
      ['table_add I.nextHop I.noSuchAction 1 0x06&&&0xff => 3', { kind: 'error', message: 'Table I.nextHop has no action I.noSuchAction' }],
      ['table_add I.nextHop I.forward 1 0x06&&&0xff => 3', { kind: 'error', message: 'Action I.forward needs 2 parameters' }],
      ['table_add I.noSuchTable I.forward 1 => 3 00:00:00:00:00:01', { kind: 'error', message: 'Invalid table name (I.noSuchTable)' }],
      [
        'table_add I.dstTor I.setDstTor 10.0.1.0/24 => 9',
        { kind: 'invalid-operation', message: 'Invalid table operation (DUPLICATE_ENTRY)', what: 'table', code: 'DUPLICATE_ENTRY' },
      ],
      ['register_read I.bestHop 99', { kind: 'invalid-operation', message: 'Invalid register operation (INVALID_INDEX)', what: 'register', code: 'INVALID_INDEX' }],
      ['register_read I.noSuchRegister 0', { kind: 'error', message: 'Invalid register name (I.noSuchRegister)' }],
      ['counter_read I.portPackets 1000', { kind: 'invalid-operation', message: 'Invalid counter operation (INVALID_INDEX)', what: 'counter', code: 'INVALID_INDEX' }],
      ['mc_node_associate 5 77', { kind: 'invalid-operation', message: 'Invalid PRE operation (INVALID_L1_HANDLE)', what: 'PRE', code: 'INVALID_L1_HANDLE' }],
      ['no_such_command', { kind: 'unknown-syntax', message: 'Unknown syntax: no_such_command' }],
      ['set_queue_rate notanumber', { kind: 'error', message: 'Bad format for rate_pps, expected integer' }],
    ])
    expect(s.results.every((r) => r.value === null)).toBe(true)
  })
})

describe('simple_switch_CLI with no switch: cli-no-switch', () => {
  it('is a connect error, and every command has no answer', () => {
    const cmds = ['register_read I.bestHop 1', 'table_add I.dstTor I.setDstTor 10.0.1.0/24 => 1']
    const s = parseCliSession(cmds, read('cli-no-switch.txt'))
    expect(s.connectError).toBe('Could not connect to thrift client on port 1')
    expect(s.failures).toHaveLength(2)
    for (const r of s.results) expect(r.error).toEqual({ kind: 'no-answer', message: 'Could not connect to thrift client on port 1' })
  })

  it('a transcript cut short leaves the commands after it unanswered', () => {
    const text = read('cli-session-ok.txt')
    const cut = text.slice(0, text.indexOf('RuntimeCmd: RuntimeCmd: RuntimeCmd: I.bestHop[1]'))
    const s = parseCliSession(commands('cli-session-ok.cmds'), cut)
    expect(s.results[9].value).toEqual({ type: 'count', count: 2 })
    expect(s.results.slice(10).every((r) => r.error?.kind === 'no-answer')).toBe(true)
  })

  it('an answer that does not match the command is an error, not a wrong value', () => {
    const s = parseCliSession(['register_read I.pathUtil 1'], 'Done\nRuntimeCmd: I.bestHop[1]= 3\nRuntimeCmd: \n')
    expect(s.results[0].ok).toBe(false)
    expect(s.results[0].error?.kind).toBe('unexpected-output')
  })
})

describe('poll rounds', () => {
  const reads: PollRead[] = [
    { kind: 'register', name: 'I.bestHop', index: 1 },
    { kind: 'register', name: 'I.bestHop' },
    { kind: 'register', name: 'I.pathUtil', index: 0 },
    { kind: 'counter', name: 'I.portPackets', index: 0 },
  ]

  it('builds one stdin for the whole round', () => {
    expect(pollCommands(reads)).toEqual(['register_read I.bestHop 1', 'register_read I.bestHop', 'register_read I.pathUtil 0', 'counter_read I.portPackets 0'])
    expect(cliInput(pollCommands(reads))).toBe('register_read I.bestHop 1\nregister_read I.bestHop\nregister_read I.pathUtil 0\ncounter_read I.portPackets 0\n')
    expect(() => pollCommands([{ kind: 'register', name: 'x\nreset_state', index: 0 }])).toThrow(/bad register/)
    expect(() => cliInput(['register_read a 1', ''])).toThrow(/blank/)
    expect(() => cliInput(['# comment'])).toThrow(/comment/)
  })

  it('parses the answers (taken from the real session) into values keyed by (register, index)', () => {
    // The answers of these four commands as cli-session-ok.txt has them, behind the real preamble.
    const ok = read('cli-session-ok.txt')
    const answer = (start: string, end: string) => ok.slice(ok.indexOf(start), ok.indexOf(end))
    const transcript =
      ok.slice(0, ok.indexOf('RuntimeCmd: ')) +
      'RuntimeCmd: ' +
      answer('I.bestHop[1]= 3', 'RuntimeCmd: I.pathUtil[0]') +
      answer('RuntimeCmd: I.pathUtil[0]', 'RuntimeCmd: RuntimeCmd: I.portPackets') +
      'RuntimeCmd: ' +
      answer('I.portPackets[0]', 'RuntimeCmd: RuntimeCmd: Creating multicast') +
      'RuntimeCmd: \n'
    const round = parsePollRound(reads, transcript)
    expect(round.errors).toEqual([])
    expect(round.connectError).toBeNull()
    expect(Object.fromEntries(round.registers)).toEqual({
      'I.bestHop[0]': 0,
      'I.bestHop[1]': 3,
      'I.bestHop[2]': 4,
      'I.bestHop[3]': 0,
      'I.bestHop[4]': 0,
      'I.bestHop[5]': 0,
      'I.bestHop[6]': 0,
      'I.bestHop[7]': 0,
      'I.pathUtil[0]': 0,
    })
    expect(round.counters.get(pollKey('I.portPackets', 0))).toEqual({ bytes: 0, packets: 0 })
  })

  it('a failed read in a round is reported and the others still count', () => {
    const errs = read('cli-session-errors.txt')
    const r: PollRead[] = [
      { kind: 'register', name: 'I.bestHop', index: 99 },
      { kind: 'register', name: 'I.noSuchRegister', index: 0 },
      { kind: 'counter', name: 'I.portPackets', index: 1000 },
    ]
    const body = errs.slice(errs.indexOf('RuntimeCmd: Invalid register operation'), errs.indexOf('RuntimeCmd: Associating node 77'))
    const round = parsePollRound(r, 'Done\n' + body + 'RuntimeCmd: \n')
    expect(round.errors.map((e) => [e.command, e.error.code ?? e.error.message])).toEqual([
      ['register_read I.bestHop 99', 'INVALID_INDEX'],
      ['register_read I.noSuchRegister 0', 'Invalid register name (I.noSuchRegister)'],
      ['counter_read I.portPackets 1000', 'INVALID_INDEX'],
    ])
    expect(round.registers.size).toBe(0)
  })

  it('no switch: every read fails with the connect error', () => {
    const round = parsePollRound(reads, read('cli-no-switch.txt'))
    expect(round.connectError).toMatch(/Could not connect/)
    expect(round.errors).toHaveLength(4)
  })
})
