import { isMap, isScalar, parseDocument } from 'yaml'

/**
 * The experiment text with one top-level scalar (`name:`, `testbed:`) set to `value`. Only that
 * value changes, in place, or one line is appended when the text has none, so every other line
 * keeps its number (errors still point into the user's file) and its comments. Text that is not
 * a mapping, or whose value is not a scalar, is returned as is, for the parser to report.
 */
export function setTopLevelScalar(yaml: string, key: string, value: string): string {
  const doc = parseDocument(yaml, { keepSourceTokens: true })
  if (doc.errors.length > 0 || !isMap(doc.contents)) return yaml
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key)
  const text = JSON.stringify(value)
  if (pair && isScalar(pair.value) && pair.value.range) {
    const [start, end] = pair.value.range
    return yaml.slice(0, start) + text + yaml.slice(end)
  }
  if (pair) return yaml
  return yaml + (yaml === '' || yaml.endsWith('\n') ? '' : '\n') + `${key}: ${text}\n`
}
