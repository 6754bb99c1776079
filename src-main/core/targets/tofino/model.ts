// The tofino-model side of the Tofino target: where the model's ports are (ports.json, veths in
// the root namespace, the switch's hosts in namespaces) and the compiled program's .conf moved
// to where it was uploaded (used on hardware too).
import { hostBatch, linksBatch, namespacesBatch, type NetnsPlan } from '../shared/netns'
import { WITH_PATH, type RemoteRun } from '../shared/remote'
import type { RunTestbedHost } from '../driver'

/** Rewrites the paths of a bf-p4c .conf to where its directory was uploaded. */
export function rewriteConf(conf: string, uploadedDir: string): string {
  const j = JSON.parse(conf) as { p4_devices?: Array<{ p4_programs?: Array<Record<string, unknown> & { p4_pipelines?: Array<Record<string, unknown>> }> }> }
  const rel = (p: unknown): unknown => {
    if (typeof p !== 'string') return p
    const m = /(?:^|\/)((?:pipe[^/]*\/)?[^/]+)$/.exec(p)
    return m ? `${uploadedDir}/${m[1]}` : p
  }
  for (const d of j.p4_devices ?? []) {
    for (const prog of d.p4_programs ?? []) {
      if ('bfrt-config' in prog) prog['bfrt-config'] = rel(prog['bfrt-config'])
      for (const pl of prog.p4_pipelines ?? []) {
        for (const k of ['context', 'config']) if (k in pl) pl[k] = rel(pl[k])
        if ('path' in pl) pl.path = uploadedDir
      }
    }
  }
  return JSON.stringify(j, null, 2) + '\n'
}

/** tofino-model's ports.json: each DEV_PORT on its veth. */
export function modelPortsJson(plan: NetnsPlan, switchIndex: number): string {
  const s = plan.switches[switchIndex]
  return JSON.stringify({ PortToIf: s.ports.map((p) => ({ device_port: p.port, if: p.ifname })) }, null, 1) + '\n'
}

/** tofino-model: namespaces for the switch's hosts, veths for its ports (root namespace, named in ports.json). */
export async function bringUpModelPorts(run: RemoteRun, plan: NetnsPlan, switchIndex: number, host: RunTestbedHost): Promise<void> {
  const sw = plan.switches[switchIndex]
  const hosts = plan.hosts.filter((x) => x.tor === sw.name)
  const sub: NetnsPlan = { ...plan, switches: [sw], hosts, links: plan.links.filter((l) => sw.ports.some((q) => q.ifname === l.a || q.ifname === l.b)) }
  const crossHost = sub.links.filter((l) => !l.hostNs)
  if (crossHost.length) {
    run.ctx.log(host.name, `tofino-model: ${crossHost.length} switch-to-switch port(s) of ${sw.name} are veths without a peer on this host; join them to the neighbouring model yourself (docs/TESTBEDS.md)`)
  }
  // Ports live in the root namespace (the model opens them there): `ip -batch` without -n.
  const links = linksBatch({ ...sub, links: sub.links.map((l) => (l.hostNs ? l : { a: l.a, b: `${l.a.slice(0, -1)}x` })) })
    .split('\n')
    .filter((l) => !l.startsWith('link set dev') || sw.ports.some((q) => l.endsWith(` ${q.ifname} up`)))
    .join('\n')
  await run.script(host, 'p4lab-netns', WITH_PATH, ['ip', '-batch', '-'], { stdin: namespacesBatch({ ...sub, switchNs: `${plan.prefix}m${switchIndex}` }) })
  await run.script(host, 'p4lab-links', WITH_PATH, ['ip', '-batch', '-'], { stdin: links })
  for (const fh of hosts) await run.script(host, 'p4lab-host', WITH_PATH, ['ip', '-n', fh.ns, '-batch', '-'], { stdin: hostBatch(fh) })
}
