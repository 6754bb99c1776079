import type { Migration } from './types'

export const testbedMappings: Migration = {
  // Where a fabric's switches go on a testbed (contract/testbed-mapping.ts): the BMv2 host of
  // each switch, or a Tofino switch's front-panel ports and the servers' NICs. One per testbed,
  // gone with it.
  name: 'testbed mappings',
  up(db) {
    db.exec(`
      CREATE TABLE testbed_mappings (
        testbed_id  INTEGER PRIMARY KEY REFERENCES testbeds (id) ON DELETE CASCADE,
        mapping     TEXT NOT NULL,           -- JSON, as contract/testbed-mapping.ts parses it
        updated_at  TEXT NOT NULL
      );
    `)
  },
}
