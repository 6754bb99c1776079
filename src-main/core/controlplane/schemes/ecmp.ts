// ECMP (p4/*/ecmp.p4) and RPS (p4/*/rps.p4): only the common tables. The bucket is a
// 5-tuple hash (ECMP) or a random number (RPS) in the data plane; no registers, no multicast.

import type { SchemeModule } from '.'
import { iface, routingEntries } from './common'

export const ecmp: SchemeModule = {
  scheme: 'ecmp',
  registers: () => [],
  iface: () => iface('ecmp'),
  render: (ctx) => ({ entries: routingEntries(ctx), registers: [], mcastGroups: [], mirrors: [] }),
}

export const rps: SchemeModule = {
  scheme: 'rps',
  registers: () => [],
  iface: () => iface('rps'),
  render: (ctx) => ({ entries: routingEntries(ctx), registers: [], mcastGroups: [], mirrors: [] }),
}
