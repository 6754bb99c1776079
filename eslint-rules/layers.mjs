// p4lab/layers: every import of a file that belongs to a layer must name a layer, package or Node
// builtin that layer may use (the table is in eslint.config.mjs), and a folder of an isolated
// group (one scheme, one target kind) may not import a sibling folder of the same group.
import { relative, sep } from 'node:path'
import { importsOf, resolveImport } from './imports.mjs'

const posix = (p) => p.split(sep).join('/')
const under = (rel, folder) => rel === folder || rel.startsWith(folder + '/')

/** The layer whose folder is the longest prefix of `rel`, or undefined. */
function layerOf(rel, layers) {
  let best
  let bestLen = -1
  for (const [name, layer] of Object.entries(layers)) {
    for (const folder of layer.folders) {
      if (under(rel, folder) && folder.length > bestLen) {
        best = name
        bestLen = folder.length
      }
    }
  }
  return best
}

function packageAllowed(layer, name) {
  if ((layer.deniedPackages ?? []).includes(name)) return false
  return layer.packages === '*' || layer.packages.includes(name)
}

function allowedText(layer) {
  const layers = layer.imports.length ? `layers ${layer.imports.join(', ')}` : 'no other layer'
  const pkgs =
    layer.packages === '*'
      ? `any package${layer.deniedPackages?.length ? ` but ${layer.deniedPackages.join(', ')}` : ''}`
      : layer.packages.length
        ? `packages ${layer.packages.join(', ')}`
        : 'no package'
  return `${layers}; ${pkgs}; ${layer.builtins ? 'Node builtins' : 'no Node builtin'}`
}

/** The child folder of `group.folder` that holds `rel` (a file directly in the group's folder has none). */
function childOf(rel, group) {
  if (!rel.startsWith(group.folder + '/')) return undefined
  const rest = rel.slice(group.folder.length + 1)
  const slash = rest.indexOf('/')
  return slash < 0 ? undefined : rest.slice(0, slash)
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Keep each layer to the layers, packages and builtins it may import' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          aliases: { type: 'object', additionalProperties: { type: 'string' } },
          layers: { type: 'object' },
          isolated: { type: 'array' },
        },
        required: ['root', 'layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      layer: "{{from}} ({{fromLayer}}) may not import {{to}} ({{toLayer}}). Layer {{fromLayer}} may import {{allowed}}.",
      unlayered:
        "{{from}} ({{fromLayer}}) imports {{to}}, which is in no layer. Move it into a layer, or add its folder to the layer table in eslint.config.mjs.",
      builtin: "{{from}} ({{fromLayer}}) may not import the Node builtin '{{name}}': this layer also runs in a browser or worker. Layer {{fromLayer}} may import {{allowed}}.",
      package: "{{from}} ({{fromLayer}}) may not import the package '{{name}}'. Layer {{fromLayer}} may import {{allowed}}.",
      isolated: '{{from}} may not import {{to}}: {{why}}',
      unresolved: "{{from}} imports '{{spec}}', which names no file, so its layer cannot be checked.",
    },
  },
  create(context) {
    const { root, aliases = {}, layers, isolated = [] } = context.options[0]
    const file = context.filename
    const from = posix(relative(root, file))
    const fromLayerName = layerOf(from, layers)
    const groups = isolated.filter((g) => childOf(from, g) !== undefined)
    if (!fromLayerName && groups.length === 0) return {}
    const fromLayer = fromLayerName ? layers[fromLayerName] : undefined
    const sourceCode = context.sourceCode

    function check(imp) {
      const loc = { start: sourceCode.getLocFromIndex(imp.start), end: sourceCode.getLocFromIndex(imp.end) }
      const r = resolveImport(imp.spec, file, aliases)
      const base = { from, fromLayer: fromLayerName, allowed: fromLayer ? allowedText(fromLayer) : '' }
      if (r.kind === 'unresolved') {
        if (fromLayer) context.report({ loc, messageId: 'unresolved', data: { from, spec: imp.spec } })
        return
      }
      if (r.kind === 'builtin') {
        if (fromLayer && !fromLayer.builtins) context.report({ loc, messageId: 'builtin', data: { ...base, name: r.name } })
        return
      }
      if (r.kind === 'package') {
        if (fromLayer && !packageAllowed(fromLayer, r.name)) context.report({ loc, messageId: 'package', data: { ...base, name: r.name } })
        return
      }
      const to = posix(relative(root, r.file))
      if (fromLayer) {
        const toLayerName = layerOf(to, layers)
        if (!toLayerName) {
          context.report({ loc, messageId: 'unlayered', data: { ...base, to } })
        } else if (toLayerName !== fromLayerName && !fromLayer.imports.includes(toLayerName)) {
          context.report({ loc, messageId: 'layer', data: { ...base, to, toLayer: toLayerName } })
        }
      }
      for (const g of groups) {
        const mine = childOf(from, g)
        const theirs = childOf(to, g)
        if (theirs === undefined || theirs === mine) continue
        if ((g.shared ?? []).includes(theirs)) continue
        if ((g.allow?.[mine] ?? []).includes(theirs)) continue
        if ((g.allowFiles?.[from] ?? []).includes(to)) continue
        context.report({ loc, messageId: 'isolated', data: { from, to, why: g.why } })
      }
    }

    return {
      Program() {
        for (const imp of importsOf(sourceCode.text, file)) check(imp)
      },
    }
  },
}
