import type { Migration } from './types'

export const slurmSubmissions: Migration = {
  // A submission under way (migration 12): written before sbatch runs, removed when its job is
  // recorded or sbatch refused it. A row whose process is gone is a job sbatch may have made
  // that nothing records: its unique job name lets a later look find it (squeue --name).
  name: 'slurm submissions',
  up(db) {
    db.exec(`
      CREATE TABLE slurm_submissions (
        id            INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        job_name      TEXT NOT NULL UNIQUE,    -- sbatch --job-name, a token of its own in it
        cluster       TEXT NOT NULL,           -- JSON: how the login node is reached (no secret)
        sweep_dir     TEXT NOT NULL,
        run_ids       TEXT NOT NULL,           -- JSON: the runs the job would carry, in task order
        owner         TEXT NOT NULL,           -- the submitting process (core/owner.ts)
        started_at    TEXT NOT NULL
      );
    `)
  },
}
