import { RunStatus } from '@contract/index'

/** Display order of run states, from waiting to finished: the contract's own order. */
export const STATUS_ORDER: readonly RunStatus[] = RunStatus.options

/** One colour per run state, shared by badges, counts and the sidebar. */
export const STATUS_COLOR: Record<RunStatus, string> = {
  queued: '#8b949e',
  held: '#c98a5e',
  deploying: '#b180d7',
  running: '#3794ff',
  collecting: '#4ec9b0',
  done: '#89d185',
  incomplete: '#d7ba4d',
  failed: '#f14c4c',
  interrupted: '#e5a04b',
  cancelled: '#6e7681',
}
