import { z } from 'zod'
import { isHostAddress } from './testbeds'

// ---- Slurm clusters (issue 16): saved like testbeds, and the sweeps sent to them. ----

export const ClusterName = z
  .string({ error: 'expected a cluster name' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a cluster name is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit')

const optionalText = (what: string) =>
  z
    .string({ error: `expected ${what}` })
    .trim()
    .max(200, `${what} is at most 200 characters`)
    .refine((s) => !/[\0\n\r]/.test(s), `${what} cannot hold a line break`)
    .transform((s) => (s === '' ? null : s))
    .nullable()
    .optional()

/** sbatch --time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS. */
export const SlurmTime = z
  .string({ error: 'expected a Slurm time limit' })
  .trim()
  .refine((s) => s === '' || /^(\d+-)?\d+(:\d{1,2}){0,2}$/.test(s), { error: (iss) => `${JSON.stringify(iss.input)} is not a Slurm time limit: give minutes (30), H:MM:SS (1:00:00) or D-HH (1-12)` })
  .transform((s) => (s === '' ? null : s))
  .nullable()
  .optional()

export const ClusterLogin = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('local') }).strict(),
    z
      .object({
        kind: z.literal('ssh'),
        host: z
          .string({ error: 'expected the login node' })
          .trim()
          .refine(isHostAddress, { error: (iss) => `${JSON.stringify(iss.input)} is not a host name or an IP address` }),
        port: z.number({ error: 'expected a port number' }).int('a port is a whole number').min(1, 'a port is 1-65535').max(65535, 'a port is 1-65535').default(22),
        user: z.string({ error: 'expected a user name' }).regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/, 'expected a login name (letters, digits, _ . -)'),
        /** A private key on this machine; null: the ssh-agent. */
        keyFile: z.string().trim().min(1, 'expected the path of a private key file').nullable().default(null),
      })
      .strict(),
  ],
  { error: "expected login kind 'local' (p4lab runs on the login node) or 'ssh'" },
)
export type ClusterLogin = z.output<typeof ClusterLogin>

export const SlurmClusterInput = z
  .object({
    name: ClusterName,
    login: ClusterLogin,
    /** A folder on the file system the login node and the compute nodes share (absolute, or relative to the login home). */
    workDir: z
      .string({ error: 'expected the shared work folder' })
      .trim()
      .min(1, 'expected the shared work folder')
      .refine((s) => !/[\0\n\r]/.test(s), 'a folder cannot hold a line break'),
    partition: optionalText('a partition'),
    account: optionalText('an account'),
    time: SlurmTime,
    /** The key file's passphrase: to the secret store, never the database. Absent: keep; null: forget. */
    passphrase: z.string().min(1, 'an empty passphrase: leave it out instead').nullable().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.login.kind === 'local' && c.passphrase) ctx.addIssue({ code: 'custom', path: ['passphrase'], message: 'a passphrase is for a key file of an SSH login' })
    if (c.login.kind === 'ssh' && c.login.keyFile === null && c.passphrase) ctx.addIssue({ code: 'custom', path: ['passphrase'], message: 'a passphrase goes with a key file (the ssh-agent holds its own keys)' })
  })
export type SlurmClusterInput = z.input<typeof SlurmClusterInput>

export const SlurmCluster = z.object({
  name: z.string(),
  login: ClusterLogin,
  /** user@host:port, or 'this machine'. */
  label: z.string(),
  workDir: z.string(),
  partition: z.string().nullable(),
  account: z.string().nullable(),
  time: z.string().nullable(),
  hasPassphrase: z.boolean(),
  createdAt: z.string(),
})
export type SlurmCluster = z.infer<typeof SlurmCluster>

export const ClusterCheckItem = z.object({
  name: z.string(),
  ok: z.boolean(),
  /** False when the probe could not run at all (no connection): nothing is known. */
  checked: z.boolean(),
  detail: z.string().nullable(),
  why: z.string(),
})
export type ClusterCheckItem = z.infer<typeof ClusterCheckItem>

export const ClusterCheck = z.object({
  cluster: z.string(),
  checkedAt: z.string(),
  /** Reached, and every item ok. */
  ready: z.boolean(),
  status: z.enum(['ok', 'unknown-key', 'changed-key', 'error']),
  message: z.string().nullable(),
  /** The login node's key (with unknown-key: the one to confirm). */
  hostKey: z.object({ keyType: z.string(), fingerprint: z.string() }).nullable(),
  items: z.array(ClusterCheckItem),
})
export type ClusterCheck = z.infer<typeof ClusterCheck>

const PositiveInt = z.number().int().positive().max(1_000_000)

export const SlurmSubmitRequest = z
  .object({
    experimentId: z.number().int().positive(),
    cluster: ClusterName,
    partition: optionalText('a partition'),
    account: optionalText('an account'),
    time: SlurmTime,
    cpusPerTask: PositiveInt.optional(),
    maxParallel: PositiveInt.optional(),
    /** Only the cells with no done run (as Resume does locally). */
    resume: z.boolean().optional(),
  })
  .strict()

/** A job array of an experiment and where its tasks are, as of the last look. */
export const SlurmJobView = z.object({
  id: z.number().int(),
  experimentId: z.number().int(),
  jobId: z.string(),
  /** Where it runs: user@host:port or 'this machine'. */
  cluster: z.string(),
  submittedAt: z.string(),
  ended: z.boolean(),
  tasks: z.number().int(),
  settled: z.number().int(),
  /** Tasks per Slurm state (PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED …). */
  states: z.record(z.string(), z.number().int()),
  /** Why the last look failed (the login node unreachable …), while it is retried. */
  error: z.string().nullable(),
})
export type SlurmJobView = z.infer<typeof SlurmJobView>
