/**
 * The SSH layer: verified connections (known_hosts), agent / key / password
 * login with secrets from a SecretStore, a pool with keepalive and reconnect, streamed
 * exec, folder upload by content hash, and detached process groups. Plain Node, never
 * electron. Every remote command line goes through `cmd()` (shell-quote).
 */
export { cmd, q, shScript, type CmdOptions } from './cmd'
export { connect, socketProblem, targetLabel, type ConnectOptions, type Connected, type SshAuth, type SshTarget } from './connect'
export {
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  SshError,
  isUnreachable,
  scrubSecrets,
  withoutKeyFile,
  type KnownKeyRef,
  type SshErrorCode,
} from './errors'
export { ConnectionLostError, LineSplitter, execOn, type ExecOptions, type ExecResult, type StreamName } from './exec'
export {
  KnownHosts,
  fingerprint,
  hostLabel,
  hostsFieldMatches,
  keyTypeOf,
  knownHostsLine,
  p4labKnownHosts,
  parseKnownHosts,
  userKnownHostsFile,
  type HostKeyVerdict,
  type KnownHostLine,
  type KnownHostsOptions,
} from './known-hosts'
export { SshHost, SshPool, backoffDelay, type BackoffOptions, type PoolEvent, type PoolOptions } from './pool'
export {
  RemoteProcesses,
  isAliveState,
  parseProcStat,
  type ProcStat,
  type ProcessInfo,
  type ProcessStatus,
  type RemoteProcessesOptions,
  type StopResult,
} from './process'
export { ChannelRefusedError, isChannelOpenFailure, type SessionOptions, type SessionStats } from './sessions'
export { uploadDir, type UploadOptions, type UploadResult } from './upload'
