import { z } from 'zod'

// Domain shapes shared by the core and the UI. Times crossing the contract are
// integers in nanoseconds (sim time) or ISO-8601 strings (wall clock).

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

/** A validation error in an experiment file: where, which field, what was expected. */
export const SpecError = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  path: z.string(),
  message: z.string(),
})
export type SpecError = z.infer<typeof SpecError>

export const ApiError = z.object({
  code: z.enum(['invalid-request', 'invalid-spec', 'not-found', 'conflict', 'internal']),
  message: z.string(),
  specErrors: z.array(SpecError).optional(),
})
export type ApiError = z.infer<typeof ApiError>

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  yaml: z.string(),
})
export type Template = z.infer<typeof Template>

export const ExperimentSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  tags: z.array(z.string()),
  runCounts: z.record(z.string(), z.number().int()),
})
export type ExperimentSummary = z.infer<typeof ExperimentSummary>

export const Experiment = ExperimentSummary.extend({
  yaml: z.string(),
  file: z.string().nullable(),
  notes: z.string(),
})
export type Experiment = z.infer<typeof Experiment>

/** Flow-completion-time statistics of one run, in nanoseconds. */
export const FctStats = z.object({
  flows: z.number().int(),
  finished: z.number().int(),
  meanNs: z.number().nullable(),
  p50Ns: z.number().nullable(),
  p99Ns: z.number().nullable(),
  /** Mean FCT of flows under 100 KB. */
  smallMeanNs: z.number().nullable(),
  /** Mean FCT of flows over 10 MB. */
  largeMeanNs: z.number().nullable(),
})
export type FctStats = z.infer<typeof FctStats>

export const Run = z.object({
  id: z.number().int(),
  experimentId: z.number().int(),
  experimentName: z.string(),
  target: z.string(),
  scheme: z.string(),
  load: z.number(),
  seed: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  status: RunStatus,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
  stats: FctStats.nullable(),
  /** Simulator or target counters: packets, drops, retransmissions, events, ... */
  counters: z.record(z.string(), z.number()).nullable(),
})
export type Run = z.infer<typeof Run>

/** One telemetry series: a kind from the series vocabulary, the entity it measures, its unit. */
export const SeriesDef = z.object({
  id: z.number().int(),
  kind: z.string(),
  entity: z.record(z.string(), z.union([z.string(), z.number()])),
  unit: z.string(),
})
export type SeriesDef = z.infer<typeof SeriesDef>

/** Samples of many series at shared instants: values[i][j] is series defs[i] at t[j]. */
export const SeriesBatch = z.object({
  t: z.array(z.number()),
  values: z.array(z.array(z.number())),
})
export type SeriesBatch = z.infer<typeof SeriesBatch>

/** A node of a run's fabric graph (src-main/topology), as the fabric view draws it. */
export const FabricNode = z.object({
  name: z.string(),
  role: z.enum(['host', 'tor', 'agg', 'spine']),
  /** Tier: host 0, ToR 1, aggregation 2, spine 3 (2 in a leaf-spine). */
  level: z.number().int(),
  /** Pod of a ToR, aggregation switch or host; -1 for spines and in leaf-spines. */
  pod: z.number().int(),
})
export type FabricNode = z.infer<typeof FabricNode>

/** A link, upper node first; `aPort`/`bPort` are each end's port numbers (as in link.util{switch,port}). */
export const FabricLink = z.object({
  name: z.string(),
  a: z.string(),
  aPort: z.number().int(),
  b: z.string(),
  bPort: z.number().int(),
  bps: z.number(),
})
export type FabricLink = z.infer<typeof FabricLink>

/** The fabric a run ran on, built from its experiment's topology (links removed before the run are absent). */
export const FabricGraph = z.object({
  kind: z.enum(['leaf-spine', 'fat-tree', 'three-tier']),
  nodes: z.array(FabricNode),
  links: z.array(FabricLink),
  /** Host names in host-index order (flows name hosts by index). */
  hosts: z.array(z.string()),
  /** Drop-tail capacity of a switch output queue, in packets. */
  queuePackets: z.number().int(),
})
export type FabricGraph = z.infer<typeof FabricGraph>

/** One stored event of a run: a status change, a step, a scheme's event, an INT report... */
export const RunEvent = z.object({
  id: z.number().int(),
  /** Sim or wire time of the event when it has one. */
  tNs: z.number().nullable(),
  at: z.string(),
  kind: z.string(),
  detail: z.unknown(),
})
export type RunEvent = z.infer<typeof RunEvent>

/** One line of a run's log: `t` is the wall clock (ISO) it was written at; `source` the orchestrator, a host, a switch or a compiler. */
export const RunLogLine = z.object({ t: z.string(), source: z.string(), line: z.string() })
export type RunLogLine = z.infer<typeof RunLogLine>

/** A run's flows, column by column: src/dst are host indices; finishNs is -1 for an unfinished flow. */
export const RunFlows = z.object({
  src: z.array(z.number().int()),
  dst: z.array(z.number().int()),
  sizeBytes: z.array(z.number()),
  startNs: z.array(z.number()),
  finishNs: z.array(z.number()),
})
export type RunFlows = z.infer<typeof RunFlows>

// ---- Testbeds (DESIGN §2, §4): where runs go, and the hosts p4lab reaches over SSH. ----

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
export const HostRole = z.enum(['switch-host', 'traffic', 'sde'], {
  error: "expected a host role: 'switch-host' (BMv2), 'sde' (Tofino) or 'traffic'",
})
export type HostRole = z.infer<typeof HostRole>
export const HostAuthKind = z.enum(['agent', 'key'], { error: "expected 'agent' or 'key'" })
export type HostAuthKind = z.infer<typeof HostAuthKind>

export const TestbedName = z
  .string({ error: 'expected a testbed name' })
  .regex(TESTBED_NAME_RE, 'a testbed name is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit')

export const Bmv2Settings = z
  .object({
    /** How the topology is brought up on the switch host. */
    bringUp: z.enum(['mininet', 'netns'], { error: "expected 'mininet' or 'netns'" }).default('mininet'),
    /** The fastest link is scaled down to this (bit/s); BMv2 tops out near 1 Gbps. */
    rateCeilingBps: z
      .number({ error: 'expected a rate in bit/s' })
      .positive('the rate ceiling must be positive')
      .max(100e9, 'a BMv2 rate ceiling above 100 Gbps cannot be right')
      .default(1e9),
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
})
export type Testbed = z.infer<typeof Testbed>

export const TestbedHostInput = z
  .object({
    /** An existing host's id, to keep it (and its pinned key and passphrase) across an edit. */
    id: z.number().int().positive().optional(),
    name: z
      .string({ error: 'expected a host name' })
      .regex(HOST_NAME_RE, 'a host name is 1-64 letters, digits, dots, dashes or underscores'),
    address: z
      .string({ error: 'expected an address' })
      .trim()
      .refine(isHostAddress, { error: (iss) => `${JSON.stringify(iss.input)} is not a host name or an IP address` }),
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
export type TestbedHostInput = z.input<typeof TestbedHostInput>

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
  version: z.string().nullable(),
  /** Where it was found (a path or an environment variable's value). */
  path: z.string().nullable(),
  /** The first line of its output, or why it is missing. */
  detail: z.string().nullable(),
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
  /** Required tools that were not found. */
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

// ---- Pipelines (issue 4): the P4 programs, their builds and the generated control planes. ----

export const P4Target = z.enum(['bmv2', 'tofino'])
export type P4Target = z.infer<typeof P4Target>
/** A program's name in p4/<arch>/: the scheme it implements. */
export const ProgramName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'expected a program name such as hula')

/** A compiler message: file:line:column: severity: message (src-main/core/p4/diagnostics.ts). */
export const P4Diagnostic = z.object({
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  severity: z.enum(['error', 'warning']),
  kind: z.string(),
  message: z.string(),
  detail: z.string(),
})
export type P4Diagnostic = z.infer<typeof P4Diagnostic>

/** A shipped program and what it declares for its control plane. */
export const PipelineProgram = z.object({
  scheme: z.string(),
  target: P4Target,
  arch: z.string(),
  /** p4/<arch>/<scheme>.p4 */
  path: z.string(),
  tables: z.array(z.object({ name: z.string(), keys: z.array(z.string()), actions: z.array(z.string()), size: z.number().int().nullable() })),
  registers: z.array(z.object({ name: z.string(), bits: z.number().int(), size: z.number().int() })),
  counters: z.array(z.object({ name: z.string(), size: z.number().int() })),
  usesMulticast: z.boolean(),
  /** Why the declarations could not be read, or null. */
  error: z.string().nullable(),
})
export type PipelineProgram = z.infer<typeof PipelineProgram>

export const PipelineVariant = z.object({
  experimentId: z.number().int(),
  scheme: z.string(),
  target: P4Target,
  main: z.string(),
  /** sha256 of the shipped main file it was copied from. */
  copiedFrom: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type PipelineVariant = z.infer<typeof PipelineVariant>

/** A program's text: the main file first, then the project files it includes. */
export const PipelineSource = z.object({
  scheme: z.string(),
  target: P4Target,
  /** How builds of it are named in the artifacts list. */
  program: z.string(),
  /** The main file, relative to the program root (e.g. v1model/hula.p4). */
  main: z.string(),
  files: z.array(z.object({ path: z.string(), text: z.string() })),
  /** Set when this is an experiment's editable copy. */
  variant: PipelineVariant.nullable(),
})
export type PipelineSource = z.infer<typeof PipelineSource>

export const PipelineRender = z.object({
  scheme: z.string(),
  target: P4Target,
  program: z.string(),
  /** e.g. "three-tier: 2 pods × 2 ToRs, 2 aggs per pod, 2 spines". */
  topology: z.string(),
  switches: z.array(
    z.object({
      name: z.string(),
      role: z.string(),
      switchId: z.number().int(),
      /** <switch>.cli or <switch>.py */
      fileName: z.string(),
      /** With comments, for people. */
      text: z.string(),
      /** What goes to the switch (BMv2: command lines only). */
      deployText: z.string(),
    }),
  ),
  /** BMv2's link-rate mapping (set_queue_rate), null on Tofino. */
  queues: z
    .object({
      ceilingBps: z.number(),
      packetBytes: z.number(),
      scale: z.number(),
      ports: z.array(
        z.object({ switch: z.string(), port: z.number().int(), bps: z.number(), scaledBps: z.number(), pps: z.number(), depthPackets: z.number() }),
      ),
    })
    .nullable(),
})
export type PipelineRender = z.infer<typeof PipelineRender>

/** A stored build (the artifacts table). */
export const PipelineArtifact = z.object({
  id: z.number().int(),
  key: z.string(),
  target: z.string(),
  program: z.string(),
  compiler: z.string(),
  options: z.record(z.string(), z.unknown()),
  status: z.enum(['ok', 'failed']),
  exitCode: z.number().int().nullable(),
  /** Output name → path relative to <userData>/artifacts/<key>/. */
  files: z.record(z.string(), z.string()),
  diagnostics: z.array(P4Diagnostic),
  log: z.string(),
  main: z.string(),
  where: z.string(),
  durationMs: z.number(),
  createdAt: z.string(),
})
export type PipelineArtifact = z.infer<typeof PipelineArtifact>

// ---- Sweeps, compare and archives (issue 7). ----

/** A cell of an experiment's run matrix; its status is its latest run's ('pending': never run). */
export const SweepCell = z.object({
  scheme: z.string(),
  load: z.number(),
  seed: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  status: z.union([RunStatus, z.literal('pending')]),
  runId: z.number().int().nullable(),
  runs: z.number().int(),
  doneRunId: z.number().int().nullable(),
  /** False for a cell with runs that the experiment's matrix no longer has. */
  inSpec: z.boolean(),
})
export type SweepCell = z.infer<typeof SweepCell>

export const SweepMatrix = z.object({
  experimentId: z.number().int(),
  axes: z.object({ schemes: z.array(z.string()), loads: z.array(z.number()), seeds: z.array(z.number().int()) }),
  cells: z.array(SweepCell),
  counts: z.record(z.string(), z.number().int()),
})
export type SweepMatrix = z.infer<typeof SweepMatrix>

export const CompareMetric = z.enum([
  'mean', 'p50', 'p99', 'small.mean', 'small.p50', 'small.p99', 'large.mean', 'large.p50', 'large.p99',
  'probeOverhead', 'goodput', 'drops', 'retransmits',
])
export type CompareMetric = z.infer<typeof CompareMetric>

const FieldValue = z.union([z.string(), z.number(), z.null()])

/** A metric against a parameter: one row per line (scheme, …) × x, with the mean and band across seeds. */
export const CompareResult = z.object({
  experiments: z.array(z.string()),
  metric: CompareMetric,
  unit: z.enum(['ns', 'ratio', 'bps', 'count']),
  by: z.string(),
  band: z.enum(['minmax', 'ci95']),
  baseline: z.string().nullable(),
  query: z.string(),
  lineKeys: z.array(z.string()),
  rows: z.array(
    z.object({
      line: z.record(z.string(), FieldValue),
      x: FieldValue,
      n: z.number().int(),
      mean: z.number(),
      lo: z.number(),
      hi: z.number(),
      sd: z.number(),
      values: z.array(z.number()),
      seeds: z.array(z.number().int()),
    }),
  ),
  matched: z.number().int(),
  excluded: z.number().int(),
  /** "Diff only": the parameters (hashes of program, topology and config included) that differ, per run. */
  differences: z.array(z.object({ field: z.string(), values: z.array(FieldValue) })),
  cdfs: z.array(z.object({ line: z.record(z.string(), FieldValue), x: FieldValue, points: z.array(z.tuple([z.number(), z.number()])) })).optional(),
})
export type CompareResult = z.infer<typeof CompareResult>

/** A field of the runs table: what a run is (run), what its spec fixes (spec), a scheme parameter, a hash, a metric. */
export const RunFieldInfo = z.object({
  name: z.string(),
  group: z.enum(['run', 'spec', 'param', 'hash', 'metric']),
})
export type RunFieldInfo = z.infer<typeof RunFieldInfo>

/** Runs as the runs table and the query language see them: every parameter, hash and metric, by field name. */
export const RunRecords = z.object({
  query: z.string(),
  /** Every field a query may name over these experiments' runs. */
  fields: z.array(RunFieldInfo),
  /** The runs the query matched, in experiment order and by id within each. */
  runs: z.array(z.object({ id: z.number().int(), experimentId: z.number().int(), tags: z.array(z.string()), fields: z.record(z.string(), FieldValue) })),
  /** "Diff only" over these runs: the parameters (hashes included) that differ, values in the runs' order. */
  differences: z.array(z.object({ field: z.string(), values: z.array(FieldValue) })),
})
export type RunRecords = z.infer<typeof RunRecords>
