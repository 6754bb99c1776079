// p4lab's own lint rules: the import layers and import cycles (see the layer table in eslint.config.mjs).
import layers from './layers.mjs'
import noImportCycle from './no-import-cycle.mjs'

export default { meta: { name: 'p4lab' }, rules: { layers, 'no-import-cycle': noImportCycle } }
