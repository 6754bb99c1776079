import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KnownHosts } from '../../src-main/core/ssh'
import type { RunTestbed } from '../../src-main/core/targets/driver'
import { netnsList } from './netns'
import { startSshd, type Sshd } from './sshd'
import { CLI_STAND_IN, SWITCH_STAND_IN, compilerStandIn } from './bmv2'

/**
 * Two BMv2-style switch hosts on this machine, as two separate machines would be: a network
 * namespace each with its own sshd (and its own /run/netns), reached from here over a management
 * veth, and joined to each other by a veth: the hosts' own network, which tunnels ride.
 *
 *   root ns  --mgmt veth--  host A (sshd on MGMT_A, underlay UNDER_A)
 *            --mgmt veth--  host B (sshd on MGMT_B, underlay UNDER_B)
 *   host A   --underlay veth--  host B
 *
 * Each host has a home folder of its own (sshd SetEnv HOME), as separate machines have: the
 * run directories, and the state of the processes a run starts there, are apart. With stand-ins,
 * each host's stand-in switches and CLIs write what they did to its own `standInLog`.
 *
 * `stop()` stops both sshds (their sessions' namespaces go with their /run/netns), deletes
 * both host namespaces (with every veth) and reports what was left.
 */
export interface TwoHostSide {
  ns: string
  sshd: Sshd
  underlay: string
  /** Its home folder (the login's $HOME). */
  home: string
  /** Where its stand-ins log (helpers/bmv2.ts, P4LAB_STANDIN_LOG). */
  standInLog: string
}

export interface TwoHostLab {
  a: TwoHostSide
  b: TwoHostSide
  dir: string
  knownHosts: KnownHosts
  testbed(name?: string): RunTestbed
  stop(): Promise<{ namespaces: string[]; links: string[] }>
}

function sh(argv: string[]): void {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr || r.error?.message}`)
}

function rootLinks(): string[] {
  return spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter(Boolean)
}

export interface TwoHostOptions {
  /** simple_switch, simple_switch_CLI and p4c-bm2-ss stand-ins (helpers/bmv2.ts) first on both hosts' PATH, so a run's check finds them. */
  standIn?: boolean
  /** Scripts first on host A's PATH only (name → text), e.g. an `ip` that miswires. */
  binA?: Record<string, string>
  /** The same for host B, e.g. a simple_switch that does not start. */
  binB?: Record<string, string>
}

export async function startTwoHostLab(tag: string, o: TwoHostOptions = {}): Promise<TwoHostLab> {
  if (!/^[a-z]{1,3}$/.test(tag)) throw new Error('tag: 1-3 lower-case letters')
  const id = `${process.pid.toString(36)}${tag}`
  const nsA = `tbh-${id}-a`
  const nsB = `tbh-${id}-b`
  const n = (process.pid % 200) + 20
  const mgmtA = [`172.30.${n}.1`, `172.30.${n}.2`]
  const mgmtB = [`172.30.${n}.5`, `172.30.${n}.6`]
  const under = [`172.29.${n}.1`, `172.29.${n}.2`]
  const ifs = { ma: `tbm${id}a`, mb: `tbm${id}b` }
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-twohost-'))
  const sshds: Sshd[] = []
  const cleanup = async () => {
    for (const s of sshds) await s.stop().catch(() => undefined)
    for (const ns of [nsA, nsB]) spawnSync('ip', ['netns', 'del', ns])
    for (const l of Object.values(ifs)) if (rootLinks().includes(l)) spawnSync('ip', ['link', 'del', l])
    rmSync(dir, { recursive: true, force: true })
    return { namespaces: netnsList().filter((x) => x === nsA || x === nsB), links: rootLinks().filter((l) => l.includes(id)) }
  }
  try {
    sh(['ip', 'netns', 'add', nsA])
    sh(['ip', 'netns', 'add', nsB])
    // Management: root <-> each host, /30 each.
    for (const [ifc, ns, [here, there]] of [
      [ifs.ma, nsA, mgmtA],
      [ifs.mb, nsB, mgmtB],
    ] as const) {
      sh(['ip', 'link', 'add', ifc, 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', ns])
      sh(['ip', 'addr', 'add', `${here}/30`, 'dev', ifc])
      sh(['ip', 'link', 'set', ifc, 'up'])
      sh(['ip', '-n', ns, 'addr', 'add', `${there}/30`, 'dev', 'mgmt0'])
      sh(['ip', '-n', ns, 'link', 'set', 'mgmt0', 'up'])
      sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
    }
    // The hosts' own network: A <-> B.
    sh(['ip', '-n', nsA, 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth1', 'netns', nsB])
    sh(['ip', '-n', nsA, 'addr', 'add', `${under[0]}/24`, 'dev', 'eth1'])
    sh(['ip', '-n', nsB, 'addr', 'add', `${under[1]}/24`, 'dev', 'eth1'])
    sh(['ip', '-n', nsA, 'link', 'set', 'eth1', 'up'])
    sh(['ip', '-n', nsB, 'link', 'set', 'eth1', 'up'])
    const pathOf = (host: 'a' | 'b'): string[] => {
      const bins: string[] = []
      const extra = host === 'a' ? o.binA : o.binB
      if (extra) {
        const d = join(dir, `bin-${host}`)
        mkdirSync(d)
        for (const [name, text] of Object.entries(extra)) writeFileSync(join(d, name), text, { mode: 0o755 })
        bins.push(d)
      }
      if (o.standIn) bins.push(join(dir, 'stand-in'))
      mkdirSync(join(dir, `home-${host}`), { mode: 0o700 })
      const env = [`HOME=${join(dir, `home-${host}`)}`, `P4LAB_STANDIN_LOG=${join(dir, `stand-in-${host}.log`)}`]
      if (bins.length) env.push(`PATH=${bins.join(':')}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`)
      return [`SetEnv ${env.join(' ')}`]
    }
    if (o.standIn) {
      const d = join(dir, 'stand-in')
      mkdirSync(d)
      writeFileSync(join(d, 'simple_switch'), SWITCH_STAND_IN, { mode: 0o755 })
      writeFileSync(join(d, 'simple_switch_CLI'), CLI_STAND_IN, { mode: 0o755 })
      writeFileSync(join(d, 'p4c-bm2-ss'), compilerStandIn(join(dir, 'p4c-argv.log')), { mode: 0o755 })
    }
    sshds.push(await startSshd({ netns: { ns: nsA, address: mgmtA[1] }, config: pathOf('a') }))
    sshds.push(await startSshd({ netns: { ns: nsB, address: mgmtB[1] }, config: pathOf('b') }))
  } catch (e) {
    await cleanup()
    throw e
  }
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  for (const s of sshds) await knownHosts.trust(s.host, s.port, s.hostKey())
  const [sa, sb] = sshds
  return {
    a: { ns: nsA, sshd: sa, underlay: under[0], home: join(dir, 'home-a'), standInLog: join(dir, 'stand-in-a.log') },
    b: { ns: nsB, sshd: sb, underlay: under[1], home: join(dir, 'home-b'), standInLog: join(dir, 'stand-in-b.log') },
    dir,
    knownHosts,
    testbed: (name = 'twohost') => ({
      name,
      kind: 'bmv2',
      settings: { bringUp: 'netns', rateCeilingBps: 1e9, calibrate: false },
      hosts: [
        { id: 1, name: 'hostA', address: sa.host, port: sa.port, user: sa.user, auth: 'key', keyFile: sa.plainKey, role: 'switch-host' },
        { id: 2, name: 'hostB', address: sb.host, port: sb.port, user: sb.user, auth: 'key', keyFile: sb.plainKey, role: 'switch-host' },
      ],
    }),
    stop: cleanup,
  }
}
