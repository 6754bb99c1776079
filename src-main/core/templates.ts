import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse } from 'yaml'
import type { Template } from '../contract'

/**
 * Experiment templates are the YAML files shipped in resources/experiments. Each is described by
 * its `description:`, a whole sentence; only a template without one falls back to its first
 * '# ' comment line (a header comment often wraps, and its first line ends mid-sentence).
 */
export function listTemplates(dir: string): Template[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => {
      const yaml = readFileSync(join(dir, f), 'utf8')
      const first = yaml.split('\n').find((l) => l.startsWith('# '))
      let name = basename(f).replace(/\.ya?ml$/, '')
      let description = first ? first.slice(2).trim() : ''
      try {
        const doc = parse(yaml) as { name?: unknown; description?: unknown }
        if (typeof doc?.name === 'string') name = doc.name
        if (typeof doc?.description === 'string' && doc.description.trim()) description = doc.description.trim()
      } catch {
        // a broken template still lists; opening it shows the error
      }
      return { id: basename(f).replace(/\.ya?ml$/, ''), name, description, yaml }
    })
}
