// The runs query language: what it accepts, what it matches, and errors that name the column.
import { describe, expect, it } from 'vitest'
import { QueryError, checkFields, matches, parseQuery, type Queryable } from '../../src-main/core/compare'

function run(fields: Record<string, string | number | null>, tags: string[] = []): Queryable {
  return { get: (f) => (f in fields ? fields[f] : undefined), tags }
}

const hula05 = run({ scheme: 'hula', load: 0.5, seed: 1, status: 'done', target: 'sim', flowletGapNs: 100000 }, ['paper'])
const ecmp03 = run({ scheme: 'ecmp', load: 0.3, seed: 2, status: 'failed', target: 'sim' })
const conga09 = run({ scheme: 'conga-prime', load: 0.9, seed: 3, status: 'done', target: 'bmv2' }, ['paper', 'draft'])

const pick = (q: string) => [hula05, ecmp03, conga09].filter((r) => matches(parseQuery(q), r)).map((r) => r.get('scheme'))

describe('query language', () => {
  it('matches comparisons, and/or/not, parentheses and tags', () => {
    expect(pick('scheme = hula and load >= 0.5')).toEqual(['hula'])
    expect(pick('status != failed')).toEqual(['hula', 'conga-prime'])
    expect(pick('tag:paper')).toEqual(['hula', 'conga-prime'])
    expect(pick('tag:paper and not tag:draft')).toEqual(['hula'])
    expect(pick('load < 0.5 or target = bmv2')).toEqual(['ecmp', 'conga-prime'])
    expect(pick('(scheme = hula or scheme = ecmp) and seed > 1')).toEqual(['ecmp'])
    expect(pick('scheme ~ CONGA')).toEqual(['conga-prime'])
    expect(pick("scheme = 'conga-prime'")).toEqual(['conga-prime'])
    expect(pick('load <= 0.3 OR load == 0.9')).toEqual(['ecmp', 'conga-prime'])
    expect(pick('flowletGapNs >= 1e5')).toEqual(['hula'])
    // A run without the field matches only '!='.
    expect(pick('flowletGapNs != 5')).toEqual(['hula', 'ecmp', 'conga-prime'])
    expect(pick('')).toEqual(['hula', 'ecmp', 'conga-prime'])
    // and binds tighter than or.
    expect(pick('scheme = ecmp or scheme = hula and load > 0.7')).toEqual(['ecmp'])
  })

  const errors: Array<[string, number, RegExp]> = [
    ['scheme = hula and load >= ', 27, /expected a value after '>=', found the end of the query/],
    ['scheme hula', 8, /expected an operator .* after the field 'scheme', found 'hula'/],
    ['scheme = hula load = 1', 15, /expected 'and', 'or' or the end of the query, found 'load'/],
    ['(scheme = hula', 15, /expected '\)' to close the '\(' at column 1, found the end of the query/],
    ['scheme = "hula', 10, /the string opened here is not closed/],
    ['load ! 0.5', 6, /'!' alone is not an operator/],
    ['load >= 0.5 and', 16, /expected a field .* found the end of the query/],
    ['scheme = hula & load = 1', 15, /unexpected character '&'/],
    ['and scheme = hula', 1, /expected a field .* found 'and'/],
    ['tag:', 5, /expected a value after 'tag:'/],
  ]
  for (const [q, column, message] of errors) {
    it(`reports ${JSON.stringify(q)} at column ${column}`, () => {
      let err: unknown
      try {
        parseQuery(q)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(QueryError)
      const e = err as QueryError
      expect(e.position + 1).toBe(column)
      expect(e.message).toMatch(new RegExp(`^column ${column}: `))
      expect(e.message).toMatch(message)
      expect(e.pointer().split('\n')[1]).toBe(' '.repeat(column - 1) + '^')
    })
  }

  it('names an unknown field and its column, and lists the known ones', () => {
    const q = 'scheme = hula and lod >= 0.5'
    expect(() => checkFields(parseQuery(q), new Set(['scheme', 'load']), q)).toThrow(/^column 19: unknown field 'lod'; known fields: load, scheme$/)
  })
})
