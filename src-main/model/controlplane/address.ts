// Address plan: host IPs and MACs, ToR subnets, switch port MACs. Pure functions.
//
// Hosts get 10.<pod>.<tor in pod>.<host on tor + 1> in fabrics with pods (fat-tree, HULA's
// 3-tier), and 10.0.<leaf>.<host on leaf + 1> in a leaf-spine, so every ToR owns one /24
// and a destination ToR is found by a longest-prefix match on the destination address.
// MACs are locally administered (0x02 first octet): a host's is 02:00 followed by its IPv4
// bytes, a switch port's is 02:53:<switch id, 16 bits>:00:<port>.

import type { Fabric } from '../topology'

export function hex2(n: number): string {
  return n.toString(16).padStart(2, '0')
}

export function ipToInt(ip: string): number {
  const b = ip.split('.').map(Number)
  if (b.length !== 4 || b.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) throw new Error(`not an IPv4 address: ${ip}`)
  return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0
}

export function macToInt(mac: string): number {
  const b = mac.split(':')
  if (b.length !== 6 || b.some((x) => !/^[0-9a-fA-F]{2}$/.test(x))) throw new Error(`not a MAC address: ${mac}`)
  return parseInt(b.join(''), 16)
}

export function hostMac(ip: string): string {
  return ['02', '00', ...ip.split('.').map((x) => hex2(Number(x)))].join(':')
}

export function switchPortMac(switchId: number, port: number): string {
  if (switchId > 0xffff || port > 0xff) throw new Error(`switch id ${switchId} or port ${port} out of the MAC plan`)
  return ['02', '53', hex2(switchId >> 8), hex2(switchId & 0xff), '00', hex2(port)].join(':')
}

/** For each ToR (in Fabric.tors order): its pod byte and its index within the pod, as the plan uses them. */
export function torOctets(f: Fabric): Array<{ a: number; b: number }> {
  const inPod = new Map<number, number>()
  return f.tors.map((t) => {
    const node = f.nodes[t]
    const pod = node.pod < 0 ? 0 : node.pod
    const i = inPod.get(pod) ?? 0
    inPod.set(pod, i + 1)
    if (pod > 255 || i > 255) throw new Error(`ToR ${node.name} does not fit the 10.<pod>.<tor>.0/24 plan`)
    return { a: pod, b: i }
  })
}
