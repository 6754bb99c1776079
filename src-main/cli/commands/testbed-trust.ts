// `p4lab testbed trust`: show each host's key fingerprint and pin it once the user confirms.
import { createInterface } from 'node:readline/promises'
import { CoreError } from '../../core/errors'
import { problem, type openCore } from '../common'
import { describeHost } from './testbed-print'

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

/** Pins the host keys of testbed `name` (one host, or all); exit code 0 only if every one is pinned. */
export async function trustHosts(core: ReturnType<typeof openCore>, name: string, v: { host?: string; yes: boolean }): Promise<number> {
  const t = await core.testbeds.get(name)
  if (t.builtin) throw new CoreError('invalid-request', `'${t.name}' has no hosts`)
  const hosts = v.host ? [v.host] : t.hosts.map((h) => h.name)
  let code = 0
  for (const name of hosts) {
    const scan = await core.testbeds.scanHostKey(t.name, name).catch((e: Error) => {
      if (e instanceof CoreError) throw e
      problem(`p4lab: ${name}: ${e.message}`)
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
      await core.testbeds.trust(t.name, name, scan.fingerprint).catch((e: Error) => problem(`p4lab: ${e.message}`))
      code = 1
      continue
    }
    process.stdout.write(`${label} presents an unknown host key:\n  ${scan.keyType} ${scan.fingerprint}\n`)
    let ok = v.yes
    if (!ok) {
      if (!process.stdin.isTTY) {
        problem(`p4lab: not pinned: there is no terminal to confirm on; compare the fingerprint with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub there) and run again with --yes`)
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
}
