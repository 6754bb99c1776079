import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parse } from 'yaml'
import type { Template } from '../contract'

/**
 * Experiment templates are the YAML files shipped in resources/experiments. The first
 * '# ' comment line of each is its one-line description.
 */
export function listTemplates(dir: string): Template[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => {
      const yaml = readFileSync(join(dir, f), 'utf8')
      const first = yaml.split('\n').find((l) => l.startsWith('# '))
      let name = basename(f).replace(/\.ya?ml$/, '')
      try {
        const doc = parse(yaml) as { name?: unknown }
        if (typeof doc?.name === 'string') name = doc.name
      } catch {
        // a broken template still lists; opening it shows the error
      }
      return { id: basename(f).replace(/\.ya?ml$/, ''), name, description: first ? first.slice(2).trim() : '', yaml }
    })
}
