// Sweeps as a whole (issue 7, item 1): the run matrix, resume, re-run failed cells, run again.
export { RERUN_STATUSES, cellKey, cellsToRerun, cellsToResume, sweepMatrix, type CellStatus, type SweepCell, type SweepMatrix } from './matrix'
export { SweepService, type SweepServiceDeps } from './service'
