// ECMP (p4/ecmp/*): only the common tables. The bucket is a 5-tuple hash in the data plane;
// no registers, no multicast.

import type { SchemeModule } from '../../model/controlplane/module'
import { iface, routingEntries } from '../shared/controlplane'

export const ecmp: SchemeModule = {
  scheme: 'ecmp',
  registers: () => [],
  iface: () => iface('ecmp'),
  render: (ctx) => ({ entries: routingEntries(ctx), registers: [], mcastGroups: [], mirrors: [] }),
}

