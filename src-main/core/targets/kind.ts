// What the core knows of a remote target kind outside its driver, said once in the kind's own
// folder (targets/<kind>/kind.ts) and found through targets/kinds.ts: the host roles and
// settings of its testbeds, what `testbed check` looks for on each host, how its compiler is
// run, and how its control plane is written. Testbeds, the build and the renderer look a kind
// up here rather than branch on 'bmv2' or 'tofino' by name, so a new kind is a type error in
// kinds.ts until its folder says each of these.
import type { HostRole, RemoteKind, ToolCheck } from '../../contract/schemas'
import type { TestbedMapping } from '../../contract/testbed-mapping'
import type { Bmv2QueueMapping, ControlPlaneState, IntOptions } from '../controlplane'
import type { ToolSpec } from '../testbeds/tools'

/** Runs a fixed command line on the host being checked (the check's timeout and abort applied). */
export type HostProbe = (argv: string[]) => Promise<{ code: number | null; stdout: string }>

/** What `testbed check` looks for on one host. */
export interface CheckPlan {
  /** The environment the tools are probed in (a Tofino SDE host: $SDE, $SDE_INSTALL). */
  env: Record<string, string>
  /** What the kind checked itself before the tools (the SDE's folders). */
  checked: ToolCheck[]
  tools: readonly ToolSpec[]
}

/** A testbed host as a mapping sees it. */
export interface MappedHost {
  name: string
  role: string
  address: string
}

export interface RemoteKindSpec<K extends RemoteKind = RemoteKind> {
  readonly kind: K
  /** The roles a host of this kind's testbeds may have; a host without a role takes the first, which every testbed needs. */
  readonly roles: readonly [HostRole, ...HostRole[]]
  /** The testbed's settings as stored: checked, defaults filled (throws the schema's error). */
  parseSettings(raw: unknown): Record<string, unknown>
  /** What `testbed check` looks for on a host of `role`, given the testbed's settings (parsed). */
  checkPlan(role: HostRole, settings: Record<string, unknown>, probe: HostProbe): Promise<CheckPlan>
  /** Every tool a run of this kind may need, for a run's "missing tool" error (why, and where it comes from). */
  readonly tools: readonly ToolSpec[]
  readonly compiler: {
    /** The compiler's name on PATH. */
    tool: string
    /** The architecture its programs are written for: p4/<program>/<arch>/<program>.p4. */
    arch: string
    /** The files a build of program `name` writes, relative to its output folder. */
    outputs(name: string): Record<string, string>
    /** Its command line, run in a work folder beside ../out. */
    argv(compiler: string, flags: readonly string[], outputs: Record<string, string>, main: string): string[]
  }
  readonly controlPlane: {
    /** A switch's file is `<switch>.<ext>`. */
    ext: string
    /**
     * Each switch's file, in the state's switch order: the text people read, and what is sent
     * to the switch. `int`: an experiment's telemetry.int, for a kind whose programs report INT.
     */
    render(state: ControlPlaneState, int?: IntOptions): Array<{ text: string; deployText: string }>
    /** How the fabric's ports map onto the switch's queues, for a kind that needs one. */
    queues(state: ControlPlaneState): Bmv2QueueMapping | null
  }
  /** How a testbed of this kind places the fabric on its hosts (contract/testbed-mapping.ts). */
  readonly mapping: {
    /**
     * What is wrong with a mapping beyond its shape, each at its path in the mapping:
     * `need(path, host, role)` records a host the testbed lacks or of another role; the rest (a
     * switch placed twice...) is returned.
     */
    problems(m: Extract<TestbedMapping, { kind: K }>, need: (path: ReadonlyArray<PropertyKey>, host: string, role: HostRole) => void): Array<{ path: ReadonlyArray<PropertyKey>; message: string }>
    /** The mapping laid over a fabric: a line per host or switch of what goes where, and what does not fit. */
    preview(state: ControlPlaneState, m: Extract<TestbedMapping, { kind: K }>, hosts: readonly MappedHost[]): { lines: string[]; problems: string[] }
  }
}
