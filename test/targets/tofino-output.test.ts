// The bfshell / bfrt_python output parser against real published sessions
// (test/fixtures/tofino/README.md cites each) and one constructed poll round.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bfrtPollKey, bfrtPollScript, combinePipes, parseBfrtPollRound, parseBfshellOutput, type BfrtPollRead } from '../../src-main/core/targets/tofino/output'

const FIX = resolve(import.meta.dirname, '../fixtures/tofino')
const read = (f: string) => readFileSync(join(FIX, f), 'utf8')

describe('run_bfshell.sh -b output (real)', () => {
  it('simple_l3 setup.py: SDE, program, device, completion, dump entries, no errors', () => {
    const o = parseBfshellOutput(read('bfshell-b-simple_l3.txt'))
    expect(o.sde).toBe('/home/nagumahu1/mysde')
    expect(o.programs).toEqual(['simple_l3'])
    expect(o.devices).toEqual([0])
    expect(o.completed).toBe(true)
    expect(o.errors).toEqual([])
    expect(o.driverErrors).toEqual([])
    // The two default entries of the dumps.
    expect(o.entries.map((e) => [e.action, e.data])).toEqual([
      ['NoAction', {}],
      ['Ingress.send', { port: 0x40 }],
    ])
  })

  it('fcm digest script on SDE 9.7.1: program list after "Devices found", completed, no errors', () => {
    const o = parseBfshellOutput(read('bfshell-b-fcm.txt'))
    expect(o.sde).toBe('/sde/bf-sde-9.7.1')
    expect(o.programs).toEqual(['fcm'])
    expect(o.devices).toEqual([0])
    expect(o.completed).toBe(true)
    expect(o.errors).toEqual([])
  })

  it('a script cut short (no "bfshell> exit") is not completed', () => {
    const text = read('bfshell-b-fcm.txt').replace('bfshell> exit\n', '')
    expect(parseBfshellOutput(text).completed).toBe(false)
  })

  it('driver ERROR log lines are collected apart from the script errors', () => {
    const o = parseBfshellOutput(read('bfshell-driver-log.txt'))
    expect(o.errors).toEqual([])
    expect(o.driverErrors.map((d) => d.module)).toEqual(['BF_BFRT', 'BF_PIPE', 'BF_PIPE'])
    expect(o.driverErrors[0].message).toBe('bfRtLearnPipeMgrInternalCb:142 Session was destroyed')
  })
})

describe('bfrt_python register reads and errors (real session, SDE 9.10.0)', () => {
  const o = parseBfshellOutput(read('bfrt-register-session.txt'))

  it('reads every Entry block: hex key, one value per pipe', () => {
    expect(o.entries.map((e) => [e.key.$REGISTER_INDEX, e.data['Egress.codel_egress.codel_drop_state.f1']])).toEqual([
      [8, [512, 512, 512, 512]],
      [511, [3, 3, 3, 3]],
      [8, [4294967295, 4294967295, 4294967295, 4294967295]],
    ])
  })

  it('reports the printed get error and both raised BfRtTableErrors, with table and status', () => {
    expect(o.errors.map((e) => ({ kind: e.kind, exception: e.exception, operation: e.operation, table: e.table, status: e.status }))).toEqual([
      { kind: 'exception', exception: 'BfRtTableError', operation: 'table_entry_mod', table: 'pipe.Egress.codel_egress.codel_drop_state', status: 'Invalid arguments' },
      { kind: 'bfrt-error', exception: undefined, operation: 'table_entry_get', table: 'pipe.Egress.codel_egress.codel_drop_state', status: 'Invalid arguments' },
      { kind: 'exception', exception: 'BfRtTableError', operation: undefined, table: undefined, status: undefined },
    ])
    expect(o.errors[2].message).toBe(
      "input 4294967296 (parsed: 4294967296) for data field b'Egress.codel_egress.codel_drop_state.f1' is greater than 32 bits.",
    )
    // The source lines quoted inside the tracebacks are not errors of their own.
    expect(o.errors).toHaveLength(3)
  })
})

describe('poll rounds', () => {
  const reads: BfrtPollRead[] = [
    { kind: 'register', name: 'Ingress.bestHop', index: 1 },
    { kind: 'register', name: 'Ingress.bestHop', index: 2 },
    { kind: 'register', name: 'Ingress.bestHop', index: 600 },
    { kind: 'counter', name: 'Ingress.portPackets', index: 0 },
  ]

  it('builds one script: each table synced once, every read after its marker and guarded', () => {
    const s = bfrtPollScript('hula', reads)
    expect(s.split('\n').filter((l) => l.includes('operation_'))).toEqual([
      '    p.Ingress.bestHop.operation_register_sync()',
      '    p.Ingress.portPackets.operation_counter_sync()',
    ])
    expect(s).toContain('print("p4lab-read 2")\ntry:\n    p.Ingress.bestHop.get(REGISTER_INDEX=600, from_hw=True)\nexcept Exception as e:')
    expect(s).toContain('p.Ingress.portPackets.get(COUNTER_INDEX=0, from_hw=True)')
    expect(s.trim().split('\n').pop()).toBe('print("p4lab-done")')
    expect(() => bfrtPollScript('hula', [{ kind: 'register', name: 'x"); import os; ("', index: 0 }])).toThrow(/bad name/)
    expect(() => bfrtPollScript('a.b', reads)).toThrow(/bad program/)
  })

  it('the script is valid Python', async () => {
    const { execFileSync } = await import('node:child_process')
    const script = bfrtPollScript('hula', reads)
    execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: script })
  })

  it('ties answers back to reads (constructed transcript in the real format)', () => {
    const round = parseBfrtPollRound(reads, read('bfshell-b-poll.constructed.txt'))
    expect(round.session.completed).toBe(true)
    expect(round.session.programs).toEqual(['hula'])
    expect(round.registers.get(bfrtPollKey('Ingress.bestHop', 1))).toEqual([0, 3, 0, 0])
    expect(round.registers.get(bfrtPollKey('Ingress.bestHop', 2))).toEqual([0, 4, 0, 0])
    expect(round.counters.get(bfrtPollKey('Ingress.portPackets', 0))).toEqual({ bytes: 125000, packets: 100 })
    expect(round.errors).toEqual([{ read: reads[2], message: 'table_entry_get failed on table pipe.Ingress.bestHop. [Invalid arguments]' }])
    expect(combinePipes(round.registers.get('Ingress.bestHop[1]')!)).toBe(3)
    expect(combinePipes([1, 2, 3, 4], 'sum')).toBe(10)
  })

  it('a read whose marker never came is an error; an exception after a marker is that read\'s error', () => {
    const text = read('bfshell-b-poll.constructed.txt')
    const cut = text.slice(0, text.indexOf('p4lab-read 3'))
    const r1 = parseBfrtPollRound(reads, cut)
    expect(r1.session.completed).toBe(false)
    expect(r1.errors.map((e) => e.message)).toEqual([
      'table_entry_get failed on table pipe.Ingress.bestHop. [Invalid arguments]',
      'no answer: the script stopped before this read',
    ])
    // The real BfRtTableError line, as the script's except clause prints it.
    const raised = cut + 'p4lab-read 3\nBfRtTableError: Error: table_entry_mod failed on table pipe.Egress.codel_egress.codel_drop_state. [Invalid arguments]\np4lab-done\nbfshell> exit\n'
    const r2 = parseBfrtPollRound(reads, raised)
    expect(r2.errors[1]).toEqual({ read: reads[3], message: 'BfRtTableError: table_entry_mod failed on table pipe.Egress.codel_egress.codel_drop_state. [Invalid arguments]' })
  })

  it('an entry for another index is not taken for the read', () => {
    const text = read('bfshell-b-poll.constructed.txt').replace('$REGISTER_INDEX                : 0x00000002', '$REGISTER_INDEX                : 0x00000009')
    const round = parseBfrtPollRound(reads, text)
    expect(round.registers.has('Ingress.bestHop[2]')).toBe(false)
    expect(round.errors.map((e) => e.read.index)).toEqual([2, 600])
  })
})
