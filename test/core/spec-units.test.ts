import { describe, expect, it } from 'vitest'
import { formatDuration, formatRate, formatSize, parseDuration, parseEventRate, parseQuantity, parseRate, parseSize } from '../../src-main/model/units'

describe('parseRate', () => {
  it.each([
    ['10Gbps', 10e9],
    ['40G', 40e9],
    ['100Mbps', 100e6],
    ['1.5Gbps', 1.5e9],
    ['1Tbps', 1e12],
    ['10 Gbps', 10e9],
    ['500Kbps', 500e3],
    ['1e9', 1e9],
    [2.5e9, 2.5e9],
  ])('%s → %d bit/s', (input, bps) => {
    expect(parseRate(input)).toBe(bps)
  })

  it('says what it expected', () => {
    expect(() => parseRate('10 apples')).toThrow("expected a rate such as 10Gbps, got '10 apples'")
    expect(() => parseRate('10GBps')).toThrow(/expected a rate/)
    expect(() => parseRate(-1)).toThrow('expected a rate such as 10Gbps, got -1')
    expect(() => parseRate(undefined)).toThrow('got nothing')
  })
})

describe('parseDuration', () => {
  it.each([
    ['1us', 1_000],
    ['100us', 100_000],
    ['500ns', 500],
    ['2ms', 2_000_000],
    ['1.5s', 1_500_000_000],
    ['1µs', 1_000], // micro sign U+00B5
    ['1μs', 1_000], // Greek mu U+03BC
    ['1.1us', 1_100], // 1.1 * 1e3 is 1100.0000000000002 in binary
    ['0.3ms', 300_000],
    [250, 250],
    ['250', 250],
  ])('%s → %d ns', (input, ns) => {
    const v = parseDuration(input)
    expect(v).toBe(ns)
    expect(Number.isInteger(v)).toBe(true)
  })

  it('refuses fractions of a nanosecond and unknown units', () => {
    expect(() => parseDuration('1.5ns')).toThrow("expected a whole number of nanoseconds, got '1.5ns'")
    expect(() => parseDuration('10 minutes')).toThrow("expected a duration such as 100us, got '10 minutes'")
    expect(() => parseDuration('us')).toThrow(/expected a duration/)
  })
})

describe('parseSize', () => {
  it.each([
    ['100KB', 100_000],
    ['1.5MB', 1_500_000],
    ['64B', 64],
    ['1MiB', 1_048_576],
    ['2KiB', 2048],
    ['1GB', 1e9],
    [1460, 1460],
  ])('%s → %d B', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes)
  })

  it('says what it expected', () => {
    expect(() => parseSize('10 Mb')).toThrow("expected a size such as 100KB, got '10 Mb'")
    expect(() => parseSize('1.5B')).toThrow(/whole number of bytes/)
  })
})

describe('format', () => {
  it('writes values back in the units people use', () => {
    expect(formatRate(10e9)).toBe('10Gbps')
    expect(formatRate(1.5e9)).toBe('1.5Gbps')
    expect(formatDuration(100_000)).toBe('100us')
    expect(formatDuration(1_500_000_000)).toBe('1.5s')
    expect(formatDuration(500)).toBe('500ns')
    expect(formatSize(1_500_000)).toBe('1.5MB')
    expect(formatSize(64)).toBe('64B')
  })
})

describe('parseEventRate', () => {
  it.each([
    [2000, 2000],
    ['2000', 2000],
    ['2000/s', 2000],
    ['2 / ms', 2000],
    ['0.5/us', 500_000],
  ])('%s → %d per second', (input, perSec) => {
    expect(parseEventRate(input)).toBe(perSec)
  })

  it('says what it expected', () => {
    expect(() => parseEventRate('fast')).toThrow("expected a rate of events such as 2000/s, got 'fast'")
    expect(() => parseEventRate('2000/h')).toThrow(/expected a rate of events/)
  })
})

describe('parseQuantity', () => {
  it.each([
    ['100us', { unit: 'duration', value: 100_000 }],
    ['1s', { unit: 'duration', value: 1e9 }],
    ['64KB', { unit: 'size', value: 64_000 }],
    ['10KiB', { unit: 'size', value: 10_240 }],
    ['10Gbps', { unit: 'rate', value: 10e9 }],
    ['40G', { unit: 'rate', value: 40e9 }],
  ])('%s → %j', (input, out) => {
    expect(parseQuantity(input)).toEqual(out)
  })

  it('leaves plain numbers and words alone, and reports unit errors', () => {
    expect(parseQuantity('100')).toBeUndefined()
    expect(parseQuantity('fast')).toBeUndefined()
    expect(() => parseQuantity('1.5ns')).toThrow("expected a whole number of nanoseconds, got '1.5ns' (1.5 nanoseconds)")
  })
})
