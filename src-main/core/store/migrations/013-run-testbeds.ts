import type { Migration } from './types'

export const runTestbeds: Migration = {
  // What a run on a remote testbed found there when it started (migration 13): the testbed's
  // kind, settings, hosts and mapping as the run saw them, without anything secret or local
  // (store/testbeds.ts describeTestbed), so an edit of the testbed since does not change what
  // the run says it ran on. NULL: a sim run, or one that started before this column.
  name: 'run testbeds',
  up(db) {
    db.exec(`
      ALTER TABLE runs ADD COLUMN testbed TEXT;  -- JSON: the testbed as the run saw it at start
    `)
  },
}
