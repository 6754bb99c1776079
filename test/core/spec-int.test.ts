// telemetry.int in experiment files: the forms that turn INT postcard reports on, the
// normalised value (absent when off, so existing experiments keep their config hash), and
// errors at the file, line and field.
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { configHash } from '../../src-main/core/compare/hashes'
import { formatSpecError, parseExperiment, type ExperimentSpec } from '../../src-main/core/spec'

const ROOT = resolve(import.meta.dirname, '../..')
const MINIMAL = `name: int
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.5, flows: 10 }
`

function parse(text: string) {
  return parseExperiment(text, { file: 'int.yaml', baseDir: ROOT, workloadsDir: join(ROOT, 'resources/workloads') })
}

function specOf(text: string): ExperimentSpec {
  const r = parse(text)
  if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
  return r.spec
}

function errorsOf(text: string): string[] {
  const r = parse(text)
  if (r.ok) throw new Error('expected errors')
  return r.errors.map(formatSpecError)
}

describe('telemetry.int', () => {
  it('is off unless asked for, and then absent from the spec (the config hash of older files is unchanged)', () => {
    const off = specOf(MINIMAL)
    expect('int' in off).toBe(false)
    const explicitOff = specOf(MINIMAL + 'telemetry: { interval: 100us, int: false }\n')
    expect('int' in explicitOff).toBe(false)
    expect(configHash(JSON.parse(JSON.stringify(explicitOff)))).toBe(configHash(JSON.parse(JSON.stringify(off))))
  })

  it('true and {} take the defaults: port 32766, every port watched', () => {
    expect(specOf(MINIMAL + 'telemetry: { int: true }\n').int).toEqual({ port: 32766, watch: 'all' })
    expect(specOf(MINIMAL + 'telemetry:\n  int: {}\n').int).toEqual({ port: 32766, watch: 'all' })
  })

  it('a mapping sets the collector port and which ports report', () => {
    const spec = specOf(MINIMAL + 'telemetry:\n  interval: 1ms\n  int: { port: 9555, watch: fabric }\n')
    expect(spec.int).toEqual({ port: 9555, watch: 'fabric' })
    expect(spec.telemetryIntervalNs).toBe(1_000_000)
    expect(specOf(MINIMAL + 'telemetry: { int: { watch: hosts } }\n').int).toEqual({ port: 32766, watch: 'hosts' })
  })

  it('INT on is a different configuration: another config hash', () => {
    const a = JSON.parse(JSON.stringify(specOf(MINIMAL)))
    const b = JSON.parse(JSON.stringify(specOf(MINIMAL + 'telemetry: { int: true }\n')))
    expect(configHash(a)).not.toBe(configHash(b))
  })

  it('names the file, line, column and field of a bad value', () => {
    expect(errorsOf(MINIMAL + 'telemetry: { int: { port: 70000 } }\n')).toEqual([
      'int.yaml:5:27: telemetry.int.port: expected a UDP port (an integer from 1 to 65535), got 70000',
    ])
    expect(errorsOf(MINIMAL + 'telemetry: { int: { port: 0 } }\n')).toEqual([
      'int.yaml:5:27: telemetry.int.port: expected a UDP port (an integer from 1 to 65535), got 0',
    ])
    expect(errorsOf(MINIMAL + 'telemetry:\n  int: { watch: spines }\n')).toEqual([
      "int.yaml:6:17: telemetry.int.watch: expected one of all, fabric, hosts, got 'spines'",
    ])
    expect(errorsOf(MINIMAL + 'telemetry:\n  int: yes\n')).toEqual([
      "int.yaml:6:8: telemetry.int: expected true, false or a mapping { port, watch }, got 'yes'",
    ])
    expect(errorsOf(MINIMAL + 'telemetry: { int: { prt: 1 } }\n')).toEqual([
      "int.yaml:5:21: telemetry.int.prt: unknown field 'prt'; expected one of port, watch",
    ])
    expect(errorsOf(MINIMAL + 'telemetry: { intt: true }\n')).toEqual([
      "int.yaml:5:14: telemetry.intt: unknown field 'intt'; expected one of interval, int",
    ])
  })
})
