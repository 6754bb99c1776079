// p4lab testbed add|host-add|host-remove|list|check|trust|clean|map|remove: testbeds with no GUI at all. Flags into input:
// ./testbed-input.ts; printing: ./testbed-print.ts; pinning host keys: ./testbed-trust.ts.
import { parseArgs } from 'node:util'
import { readFile } from 'node:fs/promises'
import { DEFAULT_RECONNECT_WINDOW_S } from '../../contract'
import { CoreError } from '../../core/errors'
import { KINDS, isRemoteKind } from '../../core/targets/kinds'
import { COMMON_OPTIONS, openCore, problem, UsageError, type Command } from '../common'
import { HOST_OPTIONS, hostsFromFlags, keep, settingsFromFlags } from './testbed-input'
import { describeHost, describeSettings, printCheck, printTestbed, table } from './testbed-print'
import { trustHosts } from './testbed-trust'

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

/** o.forReading: the subcommand only reads (openCore). */
async function withCore<T>(db: string | undefined, fn: (core: ReturnType<typeof openCore>) => Promise<T>, o: { forReading?: boolean } = {}): Promise<T> {
  const core = openCore(db, o)
  try {
    return await fn(core)
  } catch (e) {
    if (e instanceof CoreError) {
      problem(`p4lab: ${e.message}`)
      process.exitCode = e.code === 'invalid-request' || e.code === 'not-found' || e.code === 'conflict' ? 2 : 1
      return undefined as T
    }
    throw e
  } finally {
    core.opts.store.close()
  }
}

const SUBCOMMANDS = 'add, host-add, host-remove, list, check, trust, clean, map or remove'

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
      if (v.kind === undefined || !isRemoteKind(v.kind)) throw new UsageError(`--kind must be ${Object.keys(KINDS).map((k) => `'${k}'`).join(' or ')} ('sim' is built in)`)
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
      }, { forReading: true }).then((c) => c ?? Number(process.exitCode ?? 1))
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
      return withCore(v.db, (core) => trustHosts(core, positionals[0], v)).then((c) => c ?? Number(process.exitCode ?? 1))
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
        // A mapping the file gets wrong is named with the file, as a YAML error elsewhere is.
        const fromFile = (yaml: string) =>
          core.testbeds.setMapping(positionals[0], { yaml }).catch((e: unknown) => {
            throw e instanceof CoreError && e.code === 'invalid-request' ? new CoreError('invalid-request', `--file ${v.file}: ${e.message}`) : e
          })
        const t = v.clear ? await core.testbeds.setMapping(positionals[0], { mapping: null }) : text !== undefined ? await fromFile(text) : await core.testbeds.get(positionals[0])
        if (v.json) process.stdout.write(JSON.stringify(t.mapping, null, 2) + '\n')
        else process.stdout.write(t.mappingYaml ?? `testbed ${t.name} has no mapping yet: write one (see docs/TESTBEDS.md, "Mapping a fabric onto the hosts") and set it with p4lab testbed map ${t.name} --file FILE\n`)
        return 0
      }, { forReading: !v.clear && text === undefined }).then((c) => c ?? Number(process.exitCode ?? 1))
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
      throw new UsageError(`testbed needs a subcommand: ${SUBCOMMANDS}`)
    default:
      throw new UsageError(sub.startsWith('-') ? `testbed needs a subcommand before its options (${SUBCOMMANDS}), got '${sub}'` : `unknown testbed subcommand '${sub}'; expected ${SUBCOMMANDS}`)
  }
}

export const testbedCommand: Command = { name: 'testbed', usage: USAGE, run }
