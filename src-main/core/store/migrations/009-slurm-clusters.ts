import type { Migration } from './types'

export const slurmClusters: Migration = {
  // Saved Slurm clusters, as testbeds are saved: how the login node is reached (no secret: a
  // key's passphrase is in the SecretStore, the host key in known_hosts), the shared work
  // folder, and the sbatch defaults a sweep starts from.
  name: 'slurm clusters',
  up(db) {
    db.exec(`
      CREATE TABLE slurm_clusters (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        login       TEXT NOT NULL,           -- JSON: { kind: local } or { kind: ssh, host, port, user, keyFile }
        work_dir    TEXT NOT NULL,           -- on the file system the login node and the nodes share
        partition   TEXT,
        account     TEXT,
        time_limit  TEXT,                    -- sbatch --time
        created_at  TEXT NOT NULL
      );
    `)
  },
}
