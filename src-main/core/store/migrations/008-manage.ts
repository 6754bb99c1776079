import type { Migration } from './types'

export const manage: Migration = {
  name: 'tags, notes, archive and trash for runs and experiments; archive content hashes',
  up(db) {
    db.exec(`
      -- experiments.tags stays what the current revision's YAML says (tags:); store_tags are the
      -- ones added in the app or with p4lab tag, kept out of the text so a label is no revision.
      ALTER TABLE experiments ADD COLUMN store_tags  TEXT NOT NULL DEFAULT '[]';
      -- Set aside (hidden from lists, kept, restorable): archived_at, or deleted_at (the trash,
      -- emptied only by p4lab rm --purge). NULL: shown.
      ALTER TABLE experiments ADD COLUMN archived_at TEXT;
      ALTER TABLE experiments ADD COLUMN deleted_at  TEXT;
      ALTER TABLE runs ADD COLUMN tags        TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE runs ADD COLUMN notes       TEXT NOT NULL DEFAULT '';
      ALTER TABLE runs ADD COLUMN archived_at TEXT;
      ALTER TABLE runs ADD COLUMN deleted_at  TEXT;

      -- The content hash of every archive written from or read into an experiment (the sha256
      -- over its manifest's file list), so importing one that is already here is recognised.
      CREATE TABLE archive_hashes (
        experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        hash          TEXT NOT NULL,
        how           TEXT NOT NULL CHECK (how IN ('exported', 'imported')),
        at            TEXT NOT NULL,
        PRIMARY KEY (hash, experiment_id)
      ) WITHOUT ROWID;
    `)
  },
}
