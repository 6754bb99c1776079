import { z } from 'zod'

// ---- Where a fabric's switches run on a testbed: stored with the testbed, shown as YAML. ----
// The mapping names switches and hosts of the fabric (as the topology names them) and hosts of
// the testbed (as the testbed names them); it is checked against a fabric when a run starts,
// and against the testbed's Check (mapping.ts in core/testbeds).

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const Name = (what: string) => z.string({ error: `expected ${what}` }).regex(NAME_RE, `${what} is 1-64 letters, digits, dots, dashes or underscores`)

/** One BMv2 switch host and the fabric switches it runs (a fabric host goes with its ToR). */
export const Bmv2HostMapping = z
  .object({
    /** A 'switch-host' of the testbed. */
    host: Name('a testbed host name'),
    switches: z.array(Name('a switch name'), { error: 'expected a list of switch names' }).min(1, 'a mapped host runs at least one switch'),
    /**
     * The address the other hosts' tunnels reach this host at, on the hosts' own network;
     * absent: the host's SSH address (which must then be an IPv4 address).
     */
    tunnelAddress: z.ipv4({ error: 'expected an IPv4 address (the tunnel end on this host)' }).optional(),
  })
  .strict()
export type Bmv2HostMapping = z.infer<typeof Bmv2HostMapping>

export const Bmv2Mapping = z
  .object({
    kind: z.literal('bmv2'),
    /** Links between switches on different hosts ride VXLAN over the hosts' own network. */
    tunnel: z.enum(['vxlan'], { error: "expected 'vxlan'" }).default('vxlan'),
    /** The VXLAN network id of the first cross-host link; the others follow in link order. */
    vniBase: z.number({ error: 'expected a VXLAN network id' }).int('a VNI is a whole number').min(1, 'a VNI is 1-16777215').max(16_000_000, 'a VNI base is at most 16000000 (room for the links after it)').default(4000),
    /** The UDP port of the tunnels (IANA's 4789 unless the hosts' network needs another). */
    udpPort: z.number({ error: 'expected a UDP port' }).int('a port is a whole number').min(1, 'a port is 1-65535').max(65535, 'a port is 1-65535').default(4789),
    hosts: z.array(Bmv2HostMapping, { error: 'expected a list of hosts' }).min(1, 'a mapping places the switches on at least one host'),
  })
  .strict()
export type Bmv2Mapping = z.infer<typeof Bmv2Mapping>

export const PORT_SPEEDS = ['10G', '25G', '40G', '50G', '100G', '200G', '400G'] as const
export const FEC_MODES = ['none', 'fc', 'rs'] as const
export const AUTONEG_MODES = ['default', 'enable', 'disable'] as const

/** One fabric port of a Tofino switch on its front panel. */
export const TofinoPortMapping = z
  .object({
    /** The fabric's port number on this switch (as the topology numbers it). */
    port: z.number({ error: 'expected a fabric port number' }).int().min(0, 'a port number is 0 or more'),
    /** Front-panel port and lane, `N/L` (`1/0` is the first lane of the first cage). */
    frontPanel: z.string({ error: 'expected a front-panel port like 1/0' }).regex(/^\d{1,3}\/[0-7]$/, 'a front-panel port is N/L: the cage number, a slash, the lane 0-7 (e.g. 1/0)'),
    speed: z.enum(PORT_SPEEDS, { error: `expected a port speed: ${PORT_SPEEDS.join(', ')}` }),
    /** Forward error correction: none, Firecode (fc) or Reed-Solomon (rs). */
    fec: z.enum(FEC_MODES, { error: "expected 'none', 'fc' or 'rs'" }).default('none'),
    autoneg: z.enum(AUTONEG_MODES, { error: "expected 'default', 'enable' or 'disable'" }).default('default'),
  })
  .strict()
export type TofinoPortMapping = z.infer<typeof TofinoPortMapping>

export const TofinoMapping = z
  .object({
    kind: z.literal('tofino'),
    switches: z
      .array(
        z
          .object({
            switch: Name('a switch name'),
            /** The 'sde' host of the testbed driving this switch. */
            host: Name('a testbed host name'),
            ports: z.array(TofinoPortMapping, { error: 'expected a list of ports' }),
          })
          .strict(),
        { error: 'expected a list of switches' },
      )
      .min(1, 'a mapping places at least one switch'),
    /** Which server NIC is cabled as which fabric host. */
    servers: z
      .array(
        z
          .object({
            /** The fabric host (h0, h1, ...). */
            fabricHost: Name('a fabric host name'),
            /** A 'traffic' host of the testbed. */
            host: Name('a testbed host name'),
            nic: z.string({ error: 'expected an interface name' }).regex(/^[A-Za-z0-9_.:-]{1,15}$/, 'an interface name is 1-15 letters, digits, _ . : -'),
          })
          .strict(),
      )
      .default([]),
  })
  .strict()
export type TofinoMapping = z.infer<typeof TofinoMapping>

export const TestbedMapping = z.discriminatedUnion('kind', [Bmv2Mapping, TofinoMapping], { error: "expected a mapping of kind 'bmv2' or 'tofino'" })
export type TestbedMapping = z.infer<typeof TestbedMapping>
export type TestbedMappingInput = z.input<typeof TestbedMapping>

// ---- A run's progress on each host of a testbed (the 'host.progress' run event). ----
// A fabric spread over several hosts is brought up, deployed and torn down on all of them at
// once; each host reports its own steps, which the run view shows as a line per host.

export const HOST_PHASES = ['cabling', 'deploy', 'traffic', 'teardown'] as const
export const HOST_STEP_STATES = ['started', 'done', 'failed'] as const

export const HostProgress = z
  .object({
    /** The testbed host, as the testbed names it. */
    host: z.string(),
    phase: z.enum(HOST_PHASES),
    /** What the host is doing: 'namespaces', 'switches', 'tables', 'agents', ... */
    step: z.string(),
    state: z.enum(HOST_STEP_STATES),
    /** Why the step failed (state 'failed'). */
    error: z.string().optional(),
  })
  .strict()
export type HostProgress = z.infer<typeof HostProgress>
