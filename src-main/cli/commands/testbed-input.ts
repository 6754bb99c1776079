// What `p4lab testbed add|host-add` read from their flags: host specs, per-host options, kind settings.
import { userInfo } from 'node:os'
import type { Testbed, TestbedHostInput } from '../../contract'
import { parseRate, UnitError } from '../../model/units'
import { UsageError } from '../common'

export const HOST_OPTIONS = {
  host: { type: 'string', multiple: true },
  key: { type: 'string', multiple: true },
  role: { type: 'string', multiple: true },
  name: { type: 'string', multiple: true },
  'passphrase-env': { type: 'string' },
} as const


/** `[user@]addr[:port]`, with `[v6addr]:port` for IPv6 (a bare IPv6 address takes port 22). */
export function parseHostSpec(spec: string): { user?: string; address: string; port?: number } {
  let rest = spec.trim()
  let user: string | undefined
  const at = rest.lastIndexOf('@')
  if (at >= 0) {
    user = rest.slice(0, at)
    rest = rest.slice(at + 1)
    if (!user) throw new UsageError(`--host ${spec}: empty user before '@'`)
  }
  let address = rest
  let portText: string | undefined
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(rest)
  if (bracket) {
    address = bracket[1]
    portText = bracket[2]
  } else if ((rest.match(/:/g) ?? []).length === 1) {
    ;[address, portText] = rest.split(':')
  }
  if (!address) throw new UsageError(`--host ${spec}: no address`)
  let port: number | undefined
  if (portText !== undefined) {
    port = Number(portText)
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new UsageError(`--host ${spec}: the port must be 1-65535, got '${portText}'`)
  }
  return { user, address, port }
}

function hostName(address: string, taken: Set<string>): string {
  const base = address.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 60) || 'host'
  let name = base
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`
  taken.add(name)
  return name
}

function perHost(values: string[] | undefined, n: number, flag: string): Array<string | undefined> {
  if (!values || values.length === 0) return Array(n).fill(undefined)
  if (values.length === 1 && flag !== 'name') return Array(n).fill(values[0])
  if (values.length === n) return values
  throw new UsageError(`--${flag} is given ${values.length} times for ${n} --host; give it once (for every host) or once per --host`)
}

export function hostsFromFlags(
  v: { host?: string[]; key?: string[]; role?: string[]; name?: string[]; 'passphrase-env'?: string },
  taken: Set<string>,
): TestbedHostInput[] {
  const specs = v.host ?? []
  if (specs.length === 0) throw new UsageError('give at least one --host [USER@]ADDR[:PORT]')
  const keys = perHost(v.key, specs.length, 'key')
  const roles = perHost(v.role, specs.length, 'role')
  const names = perHost(v.name, specs.length, 'name')
  let passphrase: string | undefined
  if (v['passphrase-env'] !== undefined) {
    passphrase = process.env[v['passphrase-env']]
    if (!passphrase) throw new UsageError(`--passphrase-env ${v['passphrase-env']}: that environment variable is empty or not set`)
    if (!keys.some((k) => k !== undefined)) throw new UsageError('--passphrase-env is for the passphrase of a --key file')
  }
  return specs.map((spec, i) => {
    const h = parseHostSpec(spec)
    const name = names[i] ?? hostName(h.address, taken)
    taken.add(name)
    return {
      name,
      address: h.address,
      ...(h.port !== undefined ? { port: h.port } : {}),
      user: h.user ?? userInfo().username,
      auth: keys[i] ? 'key' : 'agent',
      ...(keys[i] ? { keyFile: keys[i] } : {}),
      ...(roles[i] ? { role: roles[i] as TestbedHostInput['role'] } : {}),
      ...(keys[i] && passphrase ? { passphrase } : {}),
    }
  })
}

/** An existing host as input for an update: its id keeps its pinned key and passphrase. */
export function keep(h: Testbed['hosts'][number]): TestbedHostInput {
  return {
    id: h.id,
    name: h.name,
    address: h.address,
    port: h.port,
    user: h.user,
    auth: h.auth,
    ...(h.keyFile ? { keyFile: h.keyFile } : {}),
    role: h.role,
  }
}

export function settingsFromFlags(kind: string, flags: object): Record<string, unknown> {
  const v = flags as Record<string, string | undefined>
  const s: Record<string, unknown> = {}
  const only = (flag: string, k: string) => {
    if (v[flag] !== undefined && kind !== k) throw new UsageError(`--${flag} is for a ${k} testbed`)
  }
  only('rate-ceiling', 'bmv2')
  only('rate-scale', 'bmv2')
  only('no-calibrate', 'bmv2')
  only('sde', 'tofino')
  only('sde-install', 'tofino')
  only('target', 'tofino')
  if (v['rate-ceiling'] !== undefined) {
    try {
      s.rateCeilingBps = parseRate(v['rate-ceiling'])
    } catch (e) {
      if (e instanceof UnitError) throw new UsageError(`--rate-ceiling: ${e.message}`)
      throw e
    }
  }
  if (v['rate-scale'] !== undefined) {
    const x = Number(v['rate-scale'])
    if (!(x > 0 && x <= 1)) throw new UsageError(`--rate-scale: expected a number in (0, 1] (BMv2 rate = fabric rate x this), got '${v['rate-scale']}'`)
    s.rateScale = x
  }
  if (v['no-calibrate'] !== undefined) s.calibrate = false
  if (v.sde !== undefined) s.sde = v.sde
  if (v['sde-install'] !== undefined) s.sdeInstall = v['sde-install']
  if (v.target !== undefined) s.target = v.target
  if (v['reconnect-window'] !== undefined) {
    const x = Number(v['reconnect-window'])
    if (!(Number.isFinite(x) && x >= 0 && x <= 3600)) throw new UsageError(`--reconnect-window: expected seconds from 0 to 3600, got '${v['reconnect-window']}'`)
    s.reconnectWindowS = x
  }
  return s
}
