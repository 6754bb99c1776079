import { z } from 'zod'

// Run statuses on their own, so every domain's shapes can use them without a cycle.
export const RunStatus = z.enum([
  'queued',
  'deploying',
  'running',
  'collecting',
  'done',
  'failed',
  'interrupted',
  'cancelled',
])
export type RunStatus = z.infer<typeof RunStatus>
export const TERMINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'interrupted', 'cancelled']
