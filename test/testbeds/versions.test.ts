import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  firstVersion,
  parseBfP4cVersion,
  parseBmv2Version,
  parseIperf3Version,
  parseIpVersion,
  parseMininetVersion,
  parseP4cVersion,
  parsePythonVersion,
  sdeVersionFromPath,
} from '../../src-main/core/testbeds'

/** The sections of versions.txt: `# command` then its output. */
function fixtureSections(): Record<string, string> {
  const text = readFileSync(join(__dirname, '..', 'fixtures', 'bmv2', 'versions.txt'), 'utf8')
  const out: Record<string, string> = {}
  let current = ''
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) out[(current = line.slice(2).trim())] = ''
    else if (current) out[current] += line + '\n'
  }
  return out
}

describe('version parsers', () => {
  it('read the real p4c-bm2-ss and simple_switch output in the fixtures', () => {
    const s = fixtureSections()
    expect(parseP4cVersion(s['p4c-bm2-ss --version'])).toBe('1.2.5.16')
    expect(parseBmv2Version(s['simple_switch --version'])).toBe('1.15.5')
  })

  it('read the formats the other tools print', () => {
    expect(parseP4cVersion('p4c 1.2.4.2 (SHA: 2ebc2b2 BUILD: DEBUG)\n')).toBe('1.2.4.2')
    expect(parsePythonVersion('Python 3.11.2\n')).toBe('3.11.2')
    expect(parsePythonVersion('Python 2.7.18\n')).toBe('2.7.18')
    expect(parseIperf3Version('iperf 3.12 (cJSON 1.7.15)\nLinux vm 6.1.0 #1 SMP x86_64\nOptional features available: …\n')).toBe('3.12')
    expect(parseIperf3Version('iperf 3.9\nLinux host 5.15.0-91-generic\n')).toBe('3.9')
    expect(parseIpVersion('ip utility, iproute2-6.1.0, libbpf 1.1.2\n')).toBe('6.1.0')
    expect(parseIpVersion('ip utility, iproute2-ss200127\n')).toBe('ss200127')
    expect(parseIpVersion('ip utility, iproute2-5.15.0, libbpf 0.5.0\n')).toBe('5.15.0')
    expect(parseMininetVersion('2.3.0\n')).toBe('2.3.0')
    expect(parseMininetVersion('2.3.1b4\n')).toBe('2.3.1b4')
    expect(parseBfP4cVersion('bf-p4c 9.7.0 (SHA: 0c3c4b5 BUILD: release)\n')).toBe('9.7.0')
    expect(parseBfP4cVersion('bf-p4c\nVersion 9.13.0 (SHA: abc BUILD: release)\n')).toBe('9.13.0')
    expect(sdeVersionFromPath('/home/p4/bf-sde-9.7.0')).toBe('9.7.0')
    expect(sdeVersionFromPath('/opt/sde')).toBeNull()
  })

  it('say null, never throw, on output that holds no version', () => {
    for (const f of [firstVersion, parseP4cVersion, parseBmv2Version, parsePythonVersion, parseIperf3Version, parseIpVersion, parseBfP4cVersion]) {
      expect(f('')).toBeNull()
      expect(f('command not found\n')).toBeNull()
      expect(f('error: unknown option --version\n')).toBeNull()
    }
  })
})
