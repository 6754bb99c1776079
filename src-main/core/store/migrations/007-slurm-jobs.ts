import type { Migration } from './types'

export const slurmJobs: Migration = {
  // Slurm sweeps (migration 7). The job ids are stored so any later process can follow,
  // merge and cancel a sweep the app submitted.
  name: 'slurm jobs',
  up(db) {
    db.exec(`
      CREATE TABLE slurm_jobs (
        id            INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        job_id        TEXT NOT NULL,           -- Slurm's id of the job array
        cluster       TEXT NOT NULL,           -- JSON: how the login node is reached (no secret)
        sweep_dir     TEXT NOT NULL,           -- the sweep's folder on the cluster's shared file system
        submitted_at  TEXT NOT NULL,
        ended_at      TEXT
      );
      CREATE INDEX slurm_jobs_by_experiment ON slurm_jobs (experiment_id, id);
      CREATE TABLE slurm_tasks (
        run_id        INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        slurm_job     INTEGER NOT NULL REFERENCES slurm_jobs (id) ON DELETE CASCADE,
        array_index   INTEGER NOT NULL,
        state         TEXT NOT NULL,           -- as Slurm names it: PENDING, RUNNING, COMPLETED, FAILED ...
        reason        TEXT,
        settled       INTEGER NOT NULL DEFAULT 0,  -- 1 once the outcome is in the run
        updated_at    TEXT NOT NULL,
        UNIQUE (slurm_job, array_index)
      );
    `)
  },
}
