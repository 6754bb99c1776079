// `p4lab cluster add|list|check|rm`: Slurm clusters saved like testbeds, for `p4lab run FILE
// --on slurm --cluster NAME`, `runner: { kind: slurm, cluster: NAME }` and the app.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { ClusterCheck, SlurmClusterInput } from '../contract'
import type { Core } from '../core'
import { CoreError } from '../core/errors'
import { localWorkDir } from '../core/slurm'
import { openCore, COMMON_OPTIONS, UsageError, type Command } from './common'
import { table } from './format'
import { parseLogin } from './slurm'

const OPTIONS = {
  ...COMMON_OPTIONS,
  login: { type: 'string' },
  local: { type: 'boolean', default: false },
  key: { type: 'string' },
  'passphrase-env': { type: 'string' },
  work: { type: 'string' },
  partition: { type: 'string' },
  account: { type: 'string' },
  time: { type: 'string' },
  replace: { type: 'boolean', default: false },
  'trust-host-key': { type: 'string' },
} as const

type Values = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>['values']

/** Bad input is the user's to fix (exit 2), with the core's message naming the field. */
async function userInput<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof CoreError && (err.code === 'invalid-request' || err.code === 'conflict' || err.code === 'not-found')) throw new UsageError(err.message)
    throw err
  }
}

async function add(core: Core, name: string, v: Values): Promise<number> {
  if (!v.login === !v.local) throw new UsageError('cluster add takes --login USER@HOST[:PORT] (over SSH) or --local (p4lab runs on the login node)')
  if (!v.work) throw new UsageError('cluster add needs --work DIR: a folder on the file system the login node and the nodes share')
  if (v.local && (v.key || v['passphrase-env'])) throw new UsageError('--key and --passphrase-env go with --login')
  if (v['passphrase-env'] && !v.key) throw new UsageError('--passphrase-env goes with --key (the ssh-agent holds its own keys)')
  let passphrase: string | undefined
  if (v['passphrase-env']) {
    passphrase = process.env[v['passphrase-env']]
    if (!passphrase) throw new UsageError(`--passphrase-env ${v['passphrase-env']}: that environment variable is not set or empty`)
  }
  const ref = v.login ? parseLogin(v.login, v.key ? resolve(v.key) : undefined) : { kind: 'local' as const }
  const input: SlurmClusterInput = {
    name,
    login: ref,
    // On this machine a relative folder would follow the directory each later command runs in
    // (~/ stays: it is the home folder, as on a login node).
    workDir: v.local && v.work !== '~' && !v.work.startsWith('~/') ? resolve(v.work) : v.work,
    ...(v.partition ? { partition: v.partition } : {}),
    ...(v.account ? { account: v.account } : {}),
    ...(v.time ? { time: v.time } : {}),
    ...(passphrase ? { passphrase } : {}),
  }
  const exists = core.opts.store.getCluster(name) !== undefined
  if (exists && !v.replace) throw new UsageError(`a Slurm cluster named '${name}' is saved already: --replace to change it, or p4lab cluster rm ${name}`)
  // A local work folder is made by the save when only its last part is missing (ClusterService.save).
  const made = ref.kind === 'local' && !existsSync(localWorkDir(input.workDir))
  const c = await userInput(() => core.clusters.save(input, exists ? name : undefined))
  process.stdout.write(`${exists ? 'replaced' : 'saved'} Slurm cluster ${c.name}: ${c.label}, work folder ${c.workDir}${made ? ' (created)' : ''}${c.hasPassphrase ? ', key passphrase in the secret store' : ''}\n`)
  process.stdout.write(`next: p4lab cluster check ${c.name}\n`)
  return 0
}

function printCheck(c: ClusterCheck): void {
  if (c.status !== 'ok') {
    process.stdout.write(`${c.cluster}: ${c.status}: ${c.message}\n`)
    if (c.status === 'unknown-key' && c.hostKey) process.stdout.write(`  once confirmed: p4lab cluster check ${c.cluster} --trust-host-key ${c.hostKey.fingerprint}\n`)
    return
  }
  process.stdout.write(
    table(
      ['', 'what', 'found', 'what it is for'],
      c.items.map((i) => [i.ok ? 'ok' : i.checked ? 'MISSING' : '?', i.name, i.detail ?? '', i.why]),
    ) + '\n',
  )
  process.stdout.write(`${c.cluster}: ${c.ready ? 'ready' : 'not ready'}\n`)
}

async function check(core: Core, name: string, v: Values): Promise<number> {
  let c = await userInput(() => core.clusters.check(name))
  if (c.status === 'unknown-key' && v['trust-host-key']) {
    if (v['trust-host-key'] !== c.hostKey?.fingerprint) throw new UsageError(`--trust-host-key ${v['trust-host-key']} is not the key the login node presents (${c.hostKey?.fingerprint}); nothing was pinned`)
    const t = await userInput(() => core.clusters.trust(name, v['trust-host-key']!))
    process.stderr.write(`p4lab: pinned the ${t.keyType} key ${t.fingerprint} of cluster ${name}\n`)
    c = await core.clusters.check(name)
  }
  if (v.json) process.stdout.write(JSON.stringify(c, null, 2) + '\n')
  else printCheck(c)
  return c.ready ? 0 : 1
}

async function cmdCluster(action: string, name: string | undefined, v: Values): Promise<number> {
  const core = openCore(v.db, { forReading: action === 'list' })
  try {
    if (action === 'list') {
      const all = await core.clusters.list()
      if (v.json) process.stdout.write(JSON.stringify(all, null, 2) + '\n')
      else if (all.length === 0) process.stdout.write('no Slurm clusters saved (p4lab cluster add NAME --login USER@HOST --work DIR)\n')
      else process.stdout.write(table(['name', 'login node', 'work folder', 'partition', 'account', 'time'], all.map((c) => [c.name, c.label, c.workDir, c.partition ?? '', c.account ?? '', c.time ?? ''])) + '\n')
      return 0
    }
    if (!name) throw new UsageError(`cluster ${action} takes a cluster name`)
    if (action === 'add') return await add(core, name, v)
    if (action === 'check') return await check(core, name, v)
    const deleted = await core.clusters.delete(name)
    if (!deleted) throw new UsageError(`no Slurm cluster named '${name}'`)
    process.stdout.write(`removed Slurm cluster ${name} (and its key passphrase, if one was stored)\n`)
    return 0
  } finally {
    core.opts.store.close()
  }
}

export const clusterCommand: Command = {
  name: 'cluster',
  usage: [
    'cluster add NAME (--login USER@HOST[:PORT] [--key FILE] [--passphrase-env VAR] | --local) --work DIR',
    '        [--partition P] [--account A] [--time T] [--replace]',
    '    save a Slurm cluster: its login node (over SSH, or this machine), the folder it shares with its nodes,',
    '    and the sbatch defaults; a key passphrase is read from the environment variable VAR into the secret store',
    'cluster list | check NAME [--trust-host-key SHA256:...] | rm NAME   [--db PATH] [--json]',
    '    check: the login node reached (its host key pinned once you confirm it), sbatch, squeue, sacct, scancel,',
    '    Node 20 or newer, and the shared folder writable',
  ],
  run(argv) {
    const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
    const [action, name, ...rest] = positionals
    if (!['add', 'list', 'check', 'rm'].includes(action ?? '')) throw new UsageError('cluster takes add, list, check or rm')
    if (rest.length) throw new UsageError(`cluster ${action}: unexpected '${rest[0]}'`)
    if (action === 'list' && name !== undefined) throw new UsageError(`cluster list: unexpected '${name}'`)
    return cmdCluster(action, name, values)
  },
}
