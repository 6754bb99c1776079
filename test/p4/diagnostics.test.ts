// The compiler-output parser against real p4c 1.2.5.16 transcripts (test/fixtures/bmv2) and a
// bf-p4c sample built from the documented format (no real bf-p4c transcript was available).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDiagnostics } from '../../src-main/core/p4/diagnostics'

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'bmv2', name), 'utf8')

describe('parseDiagnostics', () => {
  it('a clean compile gives nothing', () => {
    expect(parseDiagnostics(fixture('p4c-ok.txt'))).toEqual([])
    expect(parseDiagnostics('')).toEqual([])
  })

  it('an undeclared name: file, line, column from the caret, kind', () => {
    expect(parseDiagnostics(fixture('p4c-errors.txt'))).toEqual([
      {
        file: 'broken.p4',
        line: 14,
        column: 26,
        severity: 'error',
        kind: 'not-found',
        message: 'undeclaredPort: declaration not found',
        detail: '',
      },
    ])
  })

  it('warnings then a type error whose detail attaches to it', () => {
    const d = parseDiagnostics(fixture('p4c-type-error.txt'))
    expect(d.map((x) => [x.severity, x.kind, x.line, x.column])).toEqual([
      ['warning', 'unused', 12, 26],
      ['warning', 'unused', 15, 16],
      ['error', 'type-error', 15, 16],
    ])
    expect(d[0].message).toBe("'unusedReg' is unused")
    expect(d[2].message).toBe("'x'")
    expect(d[2].detail).toContain('---- Actual error:')
    expect(d[2].detail).toContain("Cannot cast implicitly type 'bit<48>' to type 'bit<8>'")
    expect(d[2].detail).toContain('---- Originating from:')
    expect(d[2].detail).toContain("broken-type.p4(15): Source expression 'h.eth.dst' produces a result")
  })

  it('warnings only', () => {
    const d = parseDiagnostics(fixture('p4c-warnings.txt'))
    expect(d).toHaveLength(2)
    expect(d.every((x) => x.severity === 'warning')).toBe(true)
    expect(d[0]).toMatchObject({ file: 'warn.p4', line: 15, column: 16, kind: 'unused', message: "'neverRead' is unused" })
    expect(d[1]).toMatchObject({ line: 17, column: 13, kind: 'overflow', message: 'x << 20: shifting value with 16 bits by 20' })
  })

  it('bf-p4c: front-end lines with a path, and back-end errors without a position', () => {
    // Built from the format bf-p4c shares with p4c's front end plus its position-less back-end errors.
    const out = [
      'p4/tna/hula.p4(120): [--Werror=type-error] error: RegisterAction: wrong number of type arguments',
      '    RegisterAction<bit<32>, bit<9>>(linkUtil) readUtil = {',
      '    ^^^^^^^^^^^^^^',
      'error: Table placement cannot make any more progress.  Though some tables have not yet been placed,',
      'error: PHV allocation was not successful',
    ].join('\n')
    const d = parseDiagnostics(out)
    expect(d.map((x) => [x.file, x.line, x.column, x.severity, x.kind])).toEqual([
      ['p4/tna/hula.p4', 120, 5, 'error', 'type-error'],
      [null, null, null, 'error', ''],
      [null, null, null, 'error', ''],
    ])
    expect(d[2].message).toBe('PHV allocation was not successful')
  })
})
