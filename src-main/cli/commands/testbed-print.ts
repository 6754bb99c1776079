// How `p4lab testbed` prints testbeds and Check results on the terminal.
import { DEFAULT_RECONNECT_WINDOW_S, type HostCheck, type Testbed, type TestbedCheck } from '../../contract'
import { formatRate } from '../../model/units'

/** A plain-text table with every column left-aligned (these are names and paths, not numbers). */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String))
  const width = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)))
  const line = (r: string[]) => r.map((c, i) => c.padEnd(width[i])).join('  ').trimEnd()
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}

export function describeSettings(t: { kind: string; settings: Record<string, unknown> }): string {
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

export function describeHost(h: { user: string; address: string; port: number }): string {
  const addr = h.address.includes(':') ? `[${h.address}]` : h.address
  return `${h.user}@${addr}${h.port === 22 ? '' : `:${h.port}`}`
}

export function printTestbed(t: Testbed): void {
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

export function printCheck(c: TestbedCheck): void {
  process.stdout.write(`testbed ${c.testbed} (${c.kind}): ${c.ready ? 'ready' : 'not ready'}\n`)
  for (const h of c.hosts) printHostCheck(c.testbed, h)
  const missing = c.hosts.flatMap((h) => h.missing.map((m) => `${h.host}: ${m}`))
  if (missing.length) process.stdout.write(`\nmissing: ${missing.join(', ')}\n`)
}
