import { describe, expect, it } from 'vitest'
import { withTestbed } from '../../src-main/core/testbeds'

describe('withTestbed (p4lab run --testbed)', () => {
  it('changes only the testbed value, keeping comments and every line number', () => {
    const yaml = 'name: x   # the name\ntestbed: sim   # where\ntopology: { kind: leaf-spine, leaves: 2 }\n'
    const out = withTestbed(yaml, 'lab1')
    expect(out).toBe('name: x   # the name\ntestbed: "lab1"   # where\ntopology: { kind: leaf-spine, leaves: 2 }\n')
    expect(withTestbed("testbed: 'old one'\nname: y\n", 'b2')).toBe('testbed: "b2"\nname: y\n')
  })

  it('appends the key when the file has none (defaults to sim), after the last line', () => {
    expect(withTestbed('name: x\nseeds: [1]', 'lab1')).toBe('name: x\nseeds: [1]\ntestbed: "lab1"\n')
    expect(withTestbed('name: x\n', 'lab1')).toBe('name: x\ntestbed: "lab1"\n')
  })

  it('leaves text it cannot edit safely for the parser to report', () => {
    for (const y of ['- a list\n', 'name: [unclosed\n', 'testbed: { nested: 1 }\n']) expect(withTestbed(y, 'lab1')).toBe(y)
  })
})
