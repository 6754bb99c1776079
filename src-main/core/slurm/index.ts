// Sweeps on a Slurm cluster (issue 16): cells as one job array, followed and merged into the store.
export { BUNDLE, JOB_FILE, type JobFile } from './bundle'
export { BundleRefusedError } from './merge'
export { LocalShell, SshShell, type ClusterShell } from './shell'
export { ENDED, arrayIndices, parseSacct, parseScontrol, parseSqueue, readTaskStates, type TaskState } from './states'
export { SLURM_OWNER_PREFIX, SlurmSweeps, SubmitCancelledError, cellRunnerPath, cutOffSubmissions, type SlurmProgress, type SlurmSubmitOptions, type SlurmTaskView } from './sweep'
export { ClusterService, MIN_NODE_MAJOR, clusterPassphraseId, localWorkDir, loginLabel } from './clusters'
export { SlurmFollower, type SlurmSubmitInput } from './follower'
