// p4lab testbed add|host-add|host-remove|list|check|trust|clean|remove: testbeds with no GUI at all.
import { userInfo } from 'node:os'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import { readFile } from 'node:fs/promises'
import { DEFAULT_RECONNECT_WINDOW_S, type HostCheck, type Testbed, type TestbedCheck, type TestbedHostInput } from '../../contract'
import { CoreError } from '../../core/errors'
import { formatRate, parseRate, UnitError } from '../../model/units'
import { COMMON_OPTIONS, openCore, UsageError, type Command } from '../common'

const USAGE = [
  'testbed add NAME --kind bmv2|tofino --host [USER@]ADDR[:PORT] [--host ...] [--key FILE] [--role ROLE] [--name HOST]',
  '        [--passphrase-env VAR] [--rate-ceiling 1Gbps] [--rate-scale X] [--no-calibrate]',
  '        [--sde PATH] [--sde-install PATH] [--target model|hardware] [--reconnect-window SECONDS]',
  '    add a BMv2 or Tofino testbed; --key/--role/--name once for every host, or once per --host in order',
  '    (BMv2: --rate-scale fixes the fabric-to-BMv2 rate factor; --no-calibrate skips measuring the switches before traffic)',
  '    (auth is the ssh-agent unless --key; a key passphrase is read from $VAR into the secret store)',
  `    (--reconnect-window: how long a run keeps reconnecting to a host whose connection dropped, default ${DEFAULT_RECONNECT_WINDOW_S} s)`,
  'testbed host-add NAME --host [USER@]ADDR[:PORT] [--key FILE] [--role ROLE] [--name HOST] [--passphrase-env VAR]',
  'testbed host-remove NAME HOST',
  'testbed list [--json]',
  'testbed check NAME [--host HOST] [--json]',
  '    log in to each host and report the tools and versions found (exit 1 unless ready)',
  'testbed trust NAME [--host HOST] [--yes]',
  "    show each host's key fingerprint and pin it once you confirm (--yes: without asking)",
  'testbed clean NAME [--json]',
    "    stop and remove what earlier runs left on the hosts when they could not be reached at teardown (found by their pid files); exit 1 unless all is clean",
  'testbed map NAME [--file MAPPING.yaml | --clear]',
    "    print the testbed's mapping as YAML (which host runs which switch; Tofino front-panel ports), or set it from a file",
  'testbed remove NAME',
]

const HOST_OPTIONS = {
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

function hostsFromFlags(
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
function keep(h: Testbed['hosts'][number]): TestbedHostInput {
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

/** A plain-text table with every column left-aligned (these are names and paths, not numbers). */
function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String))
  const width = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)))
  const line = (r: string[]) => r.map((c, i) => c.padEnd(width[i])).join('  ').trimEnd()
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}

function describeSettings(t: { kind: string; settings: Record<string, unknown> }): string {
  const s = t.settings
  const w = typeof s.reconnectWindowS === 'number' && s.reconnectWindowS !== DEFAULT_RECONNECT_WINDOW_S ? `, reconnect window ${s.reconnectWindowS} s` : ''
  return describeKindSettings(t) + (t.kind === 'sim' ? '' : w)
}

function describeKindSettings(t: { kind: string; settings: Record<string, unknown> }): string {
  const s = t.settings
  if (t.kind === 'bmv2') {
    const scale = typeof s.rateScale === 'number' ? `rate scale fixed at ${s.rateScale}` : s.calibrate === false ? "the ceiling's rate scale" : 'rate scale calibrated'
    return `rate ceiling ${formatRate(Number(s.rateCeilingBps))}, ${scale}${s.calibrate === false ? ', no calibration' : ''}`
  }
  if (t.kind === 'tofino') {
    return [`target ${String(s.target)}`, s.sde ? `SDE ${String(s.sde)}` : 'SDE from the login environment', s.sdeInstall ? `SDE_INSTALL ${String(s.sdeInstall)}` : ''].filter(Boolean).join(', ')
  }
  return '-'
}

function describeHost(h: { user: string; address: string; port: number }): string {
  const addr = h.address.includes(':') ? `[${h.address}]` : h.address
  return `${h.user}@${addr}${h.port === 22 ? '' : `:${h.port}`}`
}

function printTestbed(t: Testbed): void {
  process.stdout.write(`testbed ${t.name} (${t.kind}): ${describeSettings(t)}\n`)
  if (t.hosts.length) {
    process.stdout.write(
      table(
        ['host', 'login', 'role', 'auth', 'pinned host key'],
        t.hosts.map((h) => [
          h.name,
          describeHost(h),
          h.role,
          h.auth === 'key' ? `key ${h.keyFile}${h.hasPassphrase ? ' (passphrase stored)' : ''}` : 'agent',
          h.hostKey ? `${h.hostKey.keyType} ${h.hostKey.fingerprint}` : '-',
        ]),
      ) + '\n',
    )
  }
}

function printHostCheck(tb: string, h: HostCheck): void {
  const key = h.hostKey ? ` ${h.hostKey.keyType} ${h.hostKey.fingerprint}`.replace(/^ {2}/, ' ') : ''
  process.stdout.write(`\n${h.host}  ${describeHost(h)}  ${h.role}: ${h.status}${h.status === 'ok' ? key : ''}\n`)
  if (h.status === 'unknown-key') {
    process.stdout.write(
      `  the host key is not known yet: ${h.hostKey?.keyType} ${h.hostKey?.fingerprint}\n` +
        `  compare it with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub there), then: p4lab testbed trust ${tb} --host ${h.host}\n`,
    )
    return
  }
  if (h.message) process.stdout.write(`  ${h.message}\n`)
  if (h.tools.length) {
    const rows = h.tools.map((t) => [t.name, t.found ? 'yes' : !t.checked ? 'unknown' : t.required ? 'MISSING' : 'no', t.version ?? '-', t.path ?? '-', t.found ? '' : (t.detail ?? '')])
    process.stdout.write(
      table(['tool', 'found', 'version', 'where', ''], rows)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n') + '\n',
    )
  }
  // Each missing tool with what the run needs it for and where it comes from.
  for (const t of h.tools.filter((x) => h.missing.includes(x.name))) {
    process.stdout.write(`  ${t.name} ${t.why}\n    install: ${t.install}\n`)
  }
}

function printCheck(c: TestbedCheck): void {
  process.stdout.write(`testbed ${c.testbed} (${c.kind}): ${c.ready ? 'ready' : 'not ready'}\n`)
  for (const h of c.hosts) printHostCheck(c.testbed, h)
  const missing = c.hosts.flatMap((h) => h.missing.map((m) => `${h.host}: ${m}`))
  if (missing.length) process.stdout.write(`\nmissing: ${missing.join(', ')}\n`)
}

/** y/N on the terminal; false without one. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = await rl.question(question)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    rl.close()
  }
}

function settingsFromFlags(kind: string, flags: object): Record<string, unknown> {
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

async function withCore<T>(db: string | undefined, fn: (core: ReturnType<typeof openCore>) => Promise<T>): Promise<T> {
  const core = openCore(db)
  try {
    return await fn(core)
  } catch (e) {
    if (e instanceof CoreError) {
      process.stderr.write(`p4lab: ${e.message}\n`)
      process.exitCode = e.code === 'invalid-request' || e.code === 'not-found' || e.code === 'conflict' ? 2 : 1
      return undefined as T
    }
    throw e
  } finally {
    core.opts.store.close()
  }
}

async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv
  switch (sub) {
    case 'add': {
      const { values: v, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          ...COMMON_OPTIONS,
          ...HOST_OPTIONS,
          kind: { type: 'string' },
          'rate-ceiling': { type: 'string' },
          'rate-scale': { type: 'string' },
          'no-calibrate': { type: 'boolean' },
          sde: { type: 'string' },
          'sde-install': { type: 'string' },
          target: { type: 'string' },
          'reconnect-window': { type: 'string' },
        },
      })
      if (positionals.length !== 1) throw new UsageError('testbed add takes one NAME')
      if (v.kind !== 'bmv2' && v.kind !== 'tofino') throw new UsageError("--kind must be 'bmv2' or 'tofino' ('sim' is built in)")
      const input = {
        name: positionals[0],
        kind: v.kind,
        settings: settingsFromFlags(v.kind, v),
        hosts: hostsFromFlags(v, new Set()),
      }
      return withCore(v.db, async (core) => {
        const t = await core.testbeds.create(input)
        if (v.json) process.stdout.write(JSON.stringify(t, null, 2) + '\n')
        else {
          printTestbed(t)
          process.stdout.write(`\nnext: p4lab testbed check ${t.name}\n`)
        }
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'host-add': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS, ...HOST_OPTIONS } })
      if (positionals.length !== 1) throw new UsageError('testbed host-add takes one testbed NAME')
      return withCore(v.db, async (core) => {
        const t = await core.testbeds.get(positionals[0])
        const added = hostsFromFlags(v, new Set(t.hosts.map((h) => h.name)))
        const updated = await core.testbeds.update(t.name, { name: t.name, kind: t.kind, settings: t.settings, hosts: [...t.hosts.map(keep), ...added] })
        printTestbed(updated)
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'host-remove': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS } })
      if (positionals.length !== 2) throw new UsageError('testbed host-remove takes a testbed NAME and a HOST')
      return withCore(v.db, async (core) => {
        const t = await core.testbeds.get(positionals[0])
        if (!t.hosts.some((h) => h.name === positionals[1])) throw new CoreError('not-found', `testbed '${t.name}' has no host '${positionals[1]}'`)
        const updated = await core.testbeds.update(t.name, { name: t.name, kind: t.kind, settings: t.settings, hosts: t.hosts.filter((h) => h.name !== positionals[1]).map(keep) })
        printTestbed(updated)
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'list': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS } })
      if (positionals.length) throw new UsageError('testbed list takes no arguments')
      return withCore(v.db, async (core) => {
        const list = await core.testbeds.list()
        if (v.json) {
          process.stdout.write(JSON.stringify(list, null, 2) + '\n')
          return 0
        }
        process.stdout.write(
          table(
            ['testbed', 'kind', 'hosts', 'settings'],
            list.map((t) => [t.name, t.builtin ? `${t.kind} (built in)` : t.kind, t.hosts.map((h) => `${h.name}=${describeHost(h)}`).join(' ') || '-', describeSettings(t)]),
          ) + '\n',
        )
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'check': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS, host: { type: 'string' } } })
      if (positionals.length !== 1) throw new UsageError('testbed check takes one NAME')
      return withCore(v.db, async (core) => {
        const c = await core.testbeds.check(positionals[0], v.host ? { host: v.host } : {})
        if (v.json) process.stdout.write(JSON.stringify(c, null, 2) + '\n')
        else printCheck(c)
        return c.ready ? 0 : 1
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'trust': {
      const { values: v, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { ...COMMON_OPTIONS, host: { type: 'string' }, yes: { type: 'boolean', short: 'y', default: false } },
      })
      if (positionals.length !== 1) throw new UsageError('testbed trust takes one NAME')
      return withCore(v.db, async (core) => {
        const t = await core.testbeds.get(positionals[0])
        if (t.builtin) throw new CoreError('invalid-request', `'${t.name}' has no hosts`)
        const hosts = v.host ? [v.host] : t.hosts.map((h) => h.name)
        let code = 0
        for (const name of hosts) {
          const scan = await core.testbeds.scanHostKey(t.name, name).catch((e: Error) => {
            if (e instanceof CoreError) throw e
            process.stderr.write(`p4lab: ${name}: ${e.message}\n`)
            return null
          })
          if (!scan) {
            code = 1
            continue
          }
          const label = `${name} (${describeHost(scan.host)})`
          if (scan.status === 'known') {
            await core.testbeds.trust(t.name, name, scan.fingerprint)
            process.stdout.write(`${label}: the ${scan.keyType} key ${scan.fingerprint} is already trusted\n`)
            continue
          }
          if (scan.status !== 'unknown') {
            // changed or revoked: the service refuses, with the layer's message.
            await core.testbeds.trust(t.name, name, scan.fingerprint).catch((e: Error) => process.stderr.write(`p4lab: ${e.message}\n`))
            code = 1
            continue
          }
          process.stdout.write(`${label} presents an unknown host key:\n  ${scan.keyType} ${scan.fingerprint}\n`)
          let ok = v.yes
          if (!ok) {
            if (!process.stdin.isTTY) {
              process.stderr.write(
                `p4lab: not pinned: there is no terminal to confirm on; compare the fingerprint with the host's own ` +
                  `(ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub there) and run again with --yes\n`,
              )
              code = 1
              continue
            }
            ok = await confirm('Is this the fingerprint of the host? Trust it [y/N]: ')
          }
          if (!ok) {
            process.stdout.write(`${label}: not trusted\n`)
            code = 1
            continue
          }
          const r = await core.testbeds.trust(t.name, name, scan.fingerprint)
          process.stdout.write(`${label}: pinned ${r.keyType} ${r.fingerprint}\n`)
        }
        return code
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'clean': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS } })
      if (positionals.length !== 1) throw new UsageError('testbed clean takes one NAME')
      return withCore(v.db, async (core) => {
        const results = await core.cleanTestbed(positionals[0], (l) => process.stderr.write(`${l}\n`))
        if (v.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n')
        else if (!results.length) process.stdout.write(`testbed ${positionals[0]}: no run left anything to clean up\n`)
        else
          for (const r of results) {
            process.stdout.write(
              `run ${r.runId} on ${r.host}: ${r.clean ? 'clean' : 'NOT clean'} (${r.pidFiles} pid files, ${r.found} processes found, ${r.left} left)${r.problem ? `: ${r.problem}` : ''}\n`,
            )
          }
        return results.every((r) => r.clean) ? 0 : 1
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'map': {
      const { values: v, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { ...COMMON_OPTIONS, file: { type: 'string' }, clear: { type: 'boolean', default: false } },
      })
      if (positionals.length !== 1) throw new UsageError('testbed map takes one NAME')
      if (v.file && v.clear) throw new UsageError('testbed map: --file or --clear, not both')
      const text = v.file ? await readFile(v.file, 'utf8').catch((e: Error) => Promise.reject(new UsageError(`--file ${v.file}: ${e.message}`))) : undefined
      return withCore(v.db, async (core) => {
        const t = v.clear ? await core.testbeds.setMapping(positionals[0], { mapping: null }) : text !== undefined ? await core.testbeds.setMapping(positionals[0], { yaml: text }) : await core.testbeds.get(positionals[0])
        if (v.json) process.stdout.write(JSON.stringify(t.mapping, null, 2) + '\n')
        else process.stdout.write(t.mappingYaml ?? `testbed ${t.name} has no mapping yet: write one (see docs/TESTBEDS.md, "Mapping a fabric onto the hosts") and set it with p4lab testbed map ${t.name} --file FILE\n`)
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case 'remove': {
      const { values: v, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS } })
      if (positionals.length !== 1) throw new UsageError('testbed remove takes one NAME')
      return withCore(v.db, async (core) => {
        if (!(await core.testbeds.delete(positionals[0]))) throw new CoreError('not-found', `testbed '${positionals[0]}' does not exist`)
        process.stdout.write(`removed testbed ${positionals[0]}\n`)
        return 0
      }).then((c) => c ?? Number(process.exitCode ?? 1))
    }
    case undefined:
      throw new UsageError('testbed needs a subcommand: add, host-add, host-remove, list, check, trust, clean or remove')
    default:
      throw new UsageError(`unknown testbed subcommand '${sub}'`)
  }
}

export const testbedCommand: Command = { name: 'testbed', usage: USAGE, run }
