// RPS (p4/rps/*): only the common tables. The bucket is a random number in the data plane;
// no registers, no multicast.

import type { SchemeModule } from '../../model/controlplane/module'
import { iface, routingEntries } from '../shared/controlplane'

export const rps: SchemeModule = {
  scheme: 'rps',
  registers: () => [],
  iface: () => iface('rps'),
  render: (ctx) => ({ entries: routingEntries(ctx), registers: [], mcastGroups: [], mirrors: [] }),
}
