import type { Migration } from './types'

export const topologyLayouts: Migration = {
  // Where the topology editor's nodes sit, per experiment. Kept beside the experiment and not in
  // its YAML: the text stays the fabric's source of truth, and moving a node is no new revision.
  name: 'topology layouts',
  up(db) {
    db.exec(`
      CREATE TABLE topology_layouts (
        experiment_id INTEGER PRIMARY KEY REFERENCES experiments (id) ON DELETE CASCADE,
        positions     TEXT NOT NULL,           -- JSON: node name -> { x, y }
        updated_at    TEXT NOT NULL
      );
    `)
  },
}
