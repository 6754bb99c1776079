import { z } from 'zod'
import { TestbedMapping } from './testbed-mapping'

// ---- Testbeds: where runs go, and the hosts p4lab reaches over SSH. ----

/** Names people type in experiment files and on the command line. */
const TESTBED_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const HOST_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** A DNS name (RFC 1123 labels). */
const DNS_NAME_RE = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/
/** A login name as useradd accepts it (plus the upper case some sites use). */
const SSH_USER_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/

/** A host name or an IPv4/IPv6 address (no brackets, no port). */
export function isHostAddress(s: string): boolean {
  if (z.ipv4().safeParse(s).success || z.ipv6().safeParse(s).success) return true
  // Dotted digits that are not a valid IPv4 address (999.1.1.1) are a typo, not a name.
  if (/^[\d.]+$/.test(s)) return false
  return DNS_NAME_RE.test(s)
}

export const TestbedKind = z.enum(['sim', 'bmv2', 'tofino'])
export type TestbedKind = z.infer<typeof TestbedKind>
/** The target kinds reached over SSH: every kind but the embedded simulator. */
export const REMOTE_KINDS = TestbedKind.options.filter((k): k is Exclude<TestbedKind, 'sim'> => k !== 'sim')
export type RemoteKind = Exclude<TestbedKind, 'sim'>
export const HostRole = z.enum(['switch-host', 'traffic', 'sde'], {
  error: "expected a host role: 'switch-host' (BMv2), 'sde' (Tofino) or 'traffic'",
})
export type HostRole = z.infer<typeof HostRole>
export const HostAuthKind = z.enum(['agent', 'key'], { error: "expected 'agent' or 'key'" })
export type HostAuthKind = z.infer<typeof HostAuthKind>

export const TestbedName = z
  .string({ error: 'expected a testbed name' })
  .regex(TESTBED_NAME_RE, 'a testbed name is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit')

/** Seconds to keep reconnecting to a host after its connection dropped during a run. */
export const DEFAULT_RECONNECT_WINDOW_S = 60
const ReconnectWindowS = z
  .number({ error: 'expected a number of seconds' })
  .min(0, 'the reconnect window cannot be negative')
  .max(3600, 'a reconnect window above an hour would leave a run hanging; use at most 3600 s')
  .default(DEFAULT_RECONNECT_WINDOW_S)

export const Bmv2Settings = z
  .object({
    /**
     * Seconds p4lab keeps trying to reconnect when the SSH connection to a host drops during a
     * run; past it the run fails (docs/TESTBEDS.md, "When the connection drops").
     */
    reconnectWindowS: ReconnectWindowS,
    /**
     * Read from testbeds stored by earlier versions and ignored: p4lab always brings the fabric
     * up with its own namespaces and veths. Not written any more (the service drops it).
     */
    bringUp: z.enum(['mininet', 'netns'], { error: "expected 'mininet' or 'netns'" }).optional(),
    /** The fastest link is scaled down to this (bit/s); BMv2 tops out near 1 Gbps. */
    rateCeilingBps: z
      .number({ error: 'expected a rate in bit/s' })
      .positive('the rate ceiling must be positive')
      .max(100e9, 'a BMv2 rate ceiling above 100 Gbps cannot be right')
      .default(1e9),
    /**
     * Fixes the rate scale (BMv2 rate = fabric rate x this) instead of choosing it: the ceiling's
     * scale, lowered to what the calibration measured (docs/TESTBEDS.md, "Rates the switch host can carry").
     */
    rateScale: z
      .number({ error: 'expected a rate scale (a number in (0, 1])' })
      .positive('the rate scale must be positive')
      .max(1, 'the rate scale is at most 1 (BMv2 runs links at most at the fabric rate)')
      .optional(),
    /** Before traffic, measure what the deployed switches forward (iperf3 through the fabric) and fit the offered load to it. */
    calibrate: z.boolean({ error: 'expected true or false' }).default(true),
  })
  .strict()
export type Bmv2Settings = z.infer<typeof Bmv2Settings>

const RemotePath = z
  .string()
  .min(1, 'expected a path')
  .refine((p) => p.startsWith('/') || p.startsWith('~/'), 'expected an absolute path on the host (/… or ~/…)')
  .refine((p) => !/[\0\n]/.test(p), 'a path cannot hold a newline')

export const TofinoSettings = z
  .object({
    /** $SDE on the SDE host; when absent, the host's login environment is used. */
    sde: RemotePath.optional(),
    /** $SDE_INSTALL; defaults to $SDE/install. */
    sdeInstall: RemotePath.optional(),
    /** tofino-model (run_tofino_model.sh) or a real switch ASIC. */
    target: z.enum(['model', 'hardware'], { error: "expected 'model' or 'hardware'" }).default('model'),
    /**
     * Seconds p4lab keeps trying to reconnect when the SSH connection to a host drops during a
     * run; past it the run fails (docs/TESTBEDS.md, "When the connection drops").
     */
    reconnectWindowS: ReconnectWindowS,
  })
  .strict()
export type TofinoSettings = z.infer<typeof TofinoSettings>

/** A host as the core reports it. Secrets never appear: only whether one is stored. */
export const TestbedHost = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  port: z.number().int(),
  user: z.string(),
  auth: HostAuthKind,
  keyFile: z.string().nullable(),
  role: HostRole,
  /** The key p4lab pinned for this host (after the user confirmed it), if any. */
  hostKey: z.object({ keyType: z.string(), fingerprint: z.string() }).nullable(),
  /** A passphrase for the key file is held in the secret store. */
  hasPassphrase: z.boolean(),
})
export type TestbedHost = z.infer<typeof TestbedHost>

export const Testbed = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: TestbedKind,
  settings: z.record(z.string(), z.unknown()),
  hosts: z.array(TestbedHost),
  createdAt: z.string(),
  /** The embedded simulator's testbed: always there, not editable. */
  builtin: z.boolean(),
  /** Where a fabric goes on it (which host runs which switch; Tofino ports), or null. */
  mapping: TestbedMapping.nullable(),
  /** The same mapping as YAML (what the view shows and `p4lab testbed map` prints). */
  mappingYaml: z.string().nullable(),
})
export type Testbed = z.infer<typeof Testbed>

/**
 * `user@host:port`, `host:port`, `user@host` or `[v6]:port` as one string, split into its parts
 * (null: not a login with a user or port, e.g. a plain host name or a bare IPv6 address).
 */
export function splitLogin(s: string): { user?: string; address: string; port?: number } | null {
  const t = s.trim()
  const at = t.lastIndexOf('@')
  const user = at > 0 ? t.slice(0, at) : undefined
  let rest = at > 0 ? t.slice(at + 1) : t
  let port: number | undefined
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest)
  if (v6) {
    rest = v6[1]
    if (v6[2] !== undefined) port = Number(v6[2])
  } else {
    const hp = /^([^:]+):(\d+)$/.exec(rest)
    if (hp) {
      rest = hp[1]
      port = Number(hp[2])
    }
  }
  if (user === undefined && port === undefined && !v6) return null
  return { ...(user !== undefined ? { user } : {}), address: rest, ...(port !== undefined ? { port } : {}) }
}

/** A host input whose address holds `user@` or `:port`: those parts moved to user and port (a disagreeing one is left for the error). */
function liftLogin(v: unknown): unknown {
  if (!v || typeof v !== 'object' || typeof (v as { address?: unknown }).address !== 'string') return v
  const h = v as { address: string; user?: unknown; port?: unknown }
  const l = splitLogin(h.address)
  if (!l) return v
  if (l.user !== undefined && h.user !== undefined && h.user !== '' && h.user !== l.user) return v
  if (l.port !== undefined && h.port !== undefined && h.port !== l.port) return v
  return { ...h, address: l.address, ...(l.user !== undefined ? { user: l.user } : {}), ...(l.port !== undefined ? { port: l.port } : {}) }
}

const TestbedHostFields = z
  .object({
    /** An existing host's id, to keep it (and its pinned key and passphrase) across an edit. */
    id: z.number().int().positive().optional(),
    name: z
      .string({ error: 'expected a host name' })
      .regex(HOST_NAME_RE, 'a host name is 1-64 letters, digits, dots, dashes or underscores'),
    address: z
      .string({ error: 'expected an address' })
      .trim()
      .refine(isHostAddress, {
        error: (iss) => {
          const l = typeof iss.input === 'string' ? splitLogin(iss.input) : null
          const both = l && isHostAddress(l.address) ? ` (it holds ${l.user !== undefined ? `user ${l.user}` : ''}${l.user !== undefined && l.port !== undefined ? ' and ' : ''}${l.port !== undefined ? `port ${l.port}` : ''}, which the user or port field contradicts: give each once)` : ''
          return `${JSON.stringify(iss.input)} is not a host name or an IP address${both}`
        },
      }),
    port: z
      .number({ error: 'expected a port number' })
      .int('a port is a whole number')
      .min(1, 'a port is 1-65535')
      .max(65535, 'a port is 1-65535')
      .default(22),
    user: z.string({ error: 'expected a user name' }).regex(SSH_USER_RE, 'expected a login name (letters, digits, _ . -)'),
    auth: HostAuthKind.default('agent'),
    /** Path of the private key on the machine running p4lab (auth 'key'). */
    keyFile: z.string().trim().min(1, 'expected the path of a private key file').optional(),
    role: HostRole.optional(),
    /**
     * The key file's passphrase: it goes to the secret store, never to the database.
     * Absent: keep what is stored; null: forget it.
     */
    passphrase: z.string().min(1, 'an empty passphrase: leave it out instead').nullable().optional(),
  })
  .strict()
  .superRefine((h, ctx) => {
    if (h.auth === 'key' && !h.keyFile) ctx.addIssue({ code: 'custom', path: ['keyFile'], message: "auth 'key' needs a key file" })
    if (h.auth === 'agent' && h.keyFile) ctx.addIssue({ code: 'custom', path: ['keyFile'], message: "a key file is for auth 'key', not 'agent'" })
    if (h.auth === 'agent' && h.passphrase) ctx.addIssue({ code: 'custom', path: ['passphrase'], message: "a passphrase is for auth 'key'" })
  })
/** A host; its address may be given as `user@host:port` (user and port then come from it). */
export const TestbedHostInput = z.preprocess(liftLogin, TestbedHostFields)
export type TestbedHostInput = z.input<typeof TestbedHostFields>

const hostsInput = z.array(TestbedHostInput, { error: 'expected a list of hosts' }).min(1, 'a testbed needs at least one host').max(64)

export const TestbedInput = z.discriminatedUnion(
  'kind',
  [
    z.object({ name: TestbedName, kind: z.literal('bmv2'), settings: Bmv2Settings.prefault({}), hosts: hostsInput }).strict(),
    z.object({ name: TestbedName, kind: z.literal('tofino'), settings: TofinoSettings.prefault({}), hosts: hostsInput }).strict(),
  ],
  { error: "expected kind 'bmv2' or 'tofino' ('sim' is built in)" },
)
export type TestbedInput = z.input<typeof TestbedInput>

/** One tool looked for on a host. */
export const ToolCheck = z.object({
  name: z.string(),
  /** Needed by the host's role (missing ones make the testbed not ready). */
  required: z.boolean(),
  found: z.boolean(),
  /** False when the probe itself could not run (no channel, no answer): then nothing is known of the tool. */
  checked: z.boolean(),
  version: z.string().nullable(),
  /** Where it was found (a path or an environment variable's value). */
  path: z.string().nullable(),
  /** The first line of its output, or why it is missing. */
  detail: z.string().nullable(),
  /** What a run does with it, and what goes wrong without it. */
  why: z.string(),
  /** Where it comes from: the Debian/Ubuntu package, or how else to get it. */
  install: z.string(),
})
export type ToolCheck = z.infer<typeof ToolCheck>

export const HostCheckStatus = z.enum(['ok', 'unknown-key', 'changed-key', 'error'])
export type HostCheckStatus = z.infer<typeof HostCheckStatus>

export const HostCheck = z.object({
  host: z.string(),
  address: z.string(),
  port: z.number().int(),
  user: z.string(),
  role: HostRole,
  status: HostCheckStatus,
  /** What went wrong (or null when ok). */
  message: z.string().nullable(),
  /** The key the server presented (with unknown-key: the one to confirm). */
  hostKey: z.object({ keyType: z.string(), fingerprint: z.string() }).nullable(),
  /** With changed-key: the fingerprints p4lab expected. */
  expected: z.array(z.string()),
  tools: z.array(ToolCheck),
  /** Required tools that were not found, or that are on PATH but do not run. */
  missing: z.array(z.string()),
})
export type HostCheck = z.infer<typeof HostCheck>

export const TestbedCheck = z.object({
  testbed: z.string(),
  kind: TestbedKind,
  checkedAt: z.string(),
  /** Every host reached and every required tool found. */
  ready: z.boolean(),
  hosts: z.array(HostCheck),
})
export type TestbedCheck = z.infer<typeof TestbedCheck>

/** A mapping laid over an experiment's fabric (testbeds.previewMapping). */
export const MappingPreview = z.object({
  switches: z.array(z.string()),
  fabricHosts: z.array(z.string()),
  lines: z.array(z.string()),
  problems: z.array(z.string()),
})
export type MappingPreview = z.infer<typeof MappingPreview>
