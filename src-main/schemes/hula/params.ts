import type { ParamDecl } from '../../model/scheme'
import { PROBE_BYTES } from '../shared/probe-format'

/** HULA's parameters; the paper's values where it gives one (probe period 200 µs, flowlet gap 100 µs). */
export const HULA_PARAMS = {
  flowletGap: { unit: 'duration', default: 100_000, doc: 'flowlet inactivity gap: a flow paused this long may move to the current best hop' },
  probePeriod: { unit: 'duration', default: 200_000, doc: 'probe period T_p: how often every ToR sends a probe up' },
  keepAlive: { unit: 'duration', default: 1_000_000, doc: 'T_fail: a best hop not refreshed by a probe for this long is replaced' },
  utilTau: { unit: 'duration', default: 400_000, doc: 'time constant τ of the link-utilization estimator, at least 2 × probePeriod (default: the larger of 400 µs and 2 × probePeriod)' },
  linkDownClear: { unit: 'flag', default: 1, doc: 'true: a switch next to a failed link drops its best hops through it at once (a local shortcut the paper does not describe); false: only probes and the keep-alive move them' },
  flowletSlots: { unit: 'count', default: 4096, doc: 'flowlet table entries per switch (flows hash into them); not given by the paper' },
  probeBytes: { unit: 'size', default: PROBE_BYTES, doc: 'bytes of a probe on the wire (a minimum Ethernet frame)' },
} as const satisfies Record<string, ParamDecl>
