// p4lab/no-import-cycle: no file may import, directly or through others, a file that imports it.
// Type-only imports count: a type cycle is still two modules that cannot be understood, moved or
// tested apart. The current file's imports come from the text being linted; the rest of the graph
// is read from disk (imports.mjs caches each file by modification time).
import { relative, sep } from 'node:path'
import { fileEdges, fileEdgesOnDisk } from './imports.mjs'

const posix = (p) => p.split(sep).join('/')

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse import cycles, type-only imports included' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, aliases: { type: 'object', additionalProperties: { type: 'string' } } },
        required: ['root'],
        additionalProperties: false,
      },
    ],
    messages: {
      cycle: 'Import cycle: {{cycle}}. Move what both sides need into a file that imports neither (for shared types, a small types file).',
    },
  },
  create(context) {
    const { root, aliases = {} } = context.options[0]
    const self = context.filename
    const sourceCode = context.sourceCode
    return {
      Program() {
        // Files already searched from an earlier import of this file without reaching it.
        const dead = new Set()
        const reported = new Set()
        for (const edge of fileEdges(sourceCode.text, self, aliases)) {
          if (reported.has(edge.file)) continue
          const path = pathBack(edge.file)
          if (!path) continue
          reported.add(edge.file)
          const cycle = [self, ...path].map((f) => posix(relative(root, f))).join(' -> ')
          context.report({
            loc: { start: sourceCode.getLocFromIndex(edge.start), end: sourceCode.getLocFromIndex(edge.end) },
            messageId: 'cycle',
            data: { cycle },
          })
        }

        /** The shortest chain of imports from `start` back to this file (both ends included), or null. */
        function pathBack(start) {
          if (start === self) return [self]
          if (dead.has(start)) return null
          const parent = new Map([[start, null]])
          const queue = [start]
          for (let i = 0; i < queue.length; i++) {
            const f = queue[i]
            for (const { file: next } of fileEdgesOnDisk(f, aliases)) {
              if (next === self) {
                const path = [self]
                for (let p = f; p !== null; p = parent.get(p)) path.unshift(p)
                return path
              }
              if (parent.has(next) || dead.has(next)) continue
              parent.set(next, f)
              queue.push(next)
            }
          }
          for (const f of queue) dead.add(f)
          return null
        }
      },
    }
  },
}
