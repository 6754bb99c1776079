import type { Migration } from './types'

export const heartbeats: Migration = {
  // A run's owner becomes host:pid:bootid:starttime (core/owner.ts); the owner text needs no
  // change of schema. heartbeat_at is when the owner last showed it was alive, which is the
  // time an interrupted run is stamped with once its owner is found gone.
  name: 'run heartbeats',
  up(db) {
    db.exec(`ALTER TABLE runs ADD COLUMN heartbeat_at TEXT`)
  },
}
