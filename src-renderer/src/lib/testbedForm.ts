// The testbed form's logic apart from its template: a host's draft, what a typed address holds
// (`host:port`, `user@host:port`, `[v6]:port`), the input the contract takes, and problems placed
// at the field they concern: the contract's zod issues (path arrays), or the server's text
// (`hosts[0].address: …`, `hosts[1] (sw1): key file … does not exist`), keyed as the form keys
// its fields: `name`, `settings.rateCeilingBps`, `hosts.0.address`.
import { DEFAULT_RECONNECT_WINDOW_S, splitLogin, type HostRole, type Testbed, type TestbedInput } from '@contract/index'

export interface HostDraft {
  id?: number
  name: string
  address: string
  port: number
  user: string
  auth: 'agent' | 'key'
  keyFile: string
  passphrase: string
  hasPassphrase: boolean
  forgetPassphrase: boolean
  role: HostRole
}

export interface FormDraft {
  name: string
  kind: 'bmv2' | 'tofino'
  reconnectWindowS: number
  rateMbps: number
  /** Blank: the scale is the ceiling's, lowered by the calibration; a number fixes it. */
  rateScale: string
  calibrate: boolean
  sde: string
  sdeInstall: string
  target: string
  hosts: HostDraft[]
}

/** The form's fields for a stored testbed, or for a new one (null). */
export function draftOf(t: Testbed | null): FormDraft {
  const s = (t?.settings ?? {}) as Record<string, unknown>
  return {
    name: t?.name ?? '',
    kind: t?.kind === 'tofino' ? 'tofino' : 'bmv2',
    reconnectWindowS: typeof s.reconnectWindowS === 'number' ? s.reconnectWindowS : DEFAULT_RECONNECT_WINDOW_S,
    rateMbps: typeof s.rateCeilingBps === 'number' ? s.rateCeilingBps / 1e6 : 1000,
    rateScale: typeof s.rateScale === 'number' ? String(s.rateScale) : '',
    calibrate: s.calibrate !== false,
    sde: (s.sde as string) ?? '',
    sdeInstall: (s.sdeInstall as string) ?? '',
    target: (s.target as string) ?? 'model',
    hosts: (t?.hosts ?? []).map((h) => ({
      id: h.id,
      name: h.name,
      address: h.address,
      port: h.port,
      user: h.user,
      auth: h.auth,
      keyFile: h.keyFile ?? '',
      passphrase: '',
      hasPassphrase: h.hasPassphrase,
      forgetPassphrase: false,
      role: h.role,
    })),
  }
}

/** The roles a host of this kind of testbed can have; the first is a new testbed's first host's. */
export const rolesOf = (kind: 'bmv2' | 'tofino'): HostRole[] => (kind === 'bmv2' ? ['switch-host', 'traffic'] : ['sde', 'traffic'])

/** A new host row: the first is the switch (or SDE) host, the others traffic hosts. */
export function newHost(kind: 'bmv2' | 'tofino', index: number): HostDraft {
  const first = index === 0
  return {
    name: first ? (kind === 'bmv2' ? 'switch' : 'sde') : `host${index + 1}`,
    address: '',
    port: 22,
    user: '',
    auth: 'key',
    keyFile: '~/.ssh/id_ed25519',
    passphrase: '',
    hasPassphrase: false,
    forgetPassphrase: false,
    role: first ? rolesOf(kind)[0] : 'traffic',
  }
}

/**
 * What a typed address holds, each part to its field: `root@10.0.0.5:2222` is user root, address
 * 10.0.0.5, port 2222; `[fe80::1]:22` an IPv6 address and a port. An address with neither user nor
 * port (a plain name, a bare IPv6 address) is left as typed.
 */
export function splitAddress<T extends Pick<HostDraft, 'address' | 'user' | 'port'>>(h: T): T {
  const l = splitLogin(h.address)
  if (!l) return h
  return { ...h, address: l.address, ...(l.user !== undefined ? { user: l.user } : {}), ...(l.port !== undefined ? { port: l.port } : {}) }
}

/** The contract's input for the form as it stands (trimmed; settings of its kind only). */
export function testbedInput(form: FormDraft): TestbedInput {
  const hosts = form.hosts.map((h) => ({
    ...(h.id !== undefined ? { id: h.id } : {}),
    name: h.name.trim(),
    address: h.address.trim(),
    port: Number(h.port),
    user: h.user.trim(),
    auth: h.auth,
    ...(h.auth === 'key' ? { keyFile: h.keyFile.trim() } : {}),
    role: h.role,
    ...(h.auth === 'key' && h.passphrase ? { passphrase: h.passphrase } : {}),
    ...(h.forgetPassphrase && !h.passphrase ? { passphrase: null } : {}),
  }))
  const reconnectWindowS = Number(form.reconnectWindowS)
  if (form.kind === 'bmv2') {
    return {
      name: form.name.trim(),
      kind: 'bmv2',
      settings: {
        reconnectWindowS,
        rateCeilingBps: Number(form.rateMbps) * 1e6,
        ...(form.rateScale.trim() ? { rateScale: Number(form.rateScale) } : {}),
        calibrate: form.calibrate,
      },
      hosts,
    }
  }
  return {
    name: form.name.trim(),
    kind: 'tofino',
    settings: {
      reconnectWindowS,
      target: form.target as 'model' | 'hardware',
      ...(form.sde.trim() ? { sde: form.sde.trim() } : {}),
      ...(form.sdeInstall.trim() ? { sdeInstall: form.sdeInstall.trim() } : {}),
    },
    hosts,
  }
}

export interface FieldErrors {
  fields: Record<string, string>
  /** What names no field (shown at the top of the form). */
  rest: string[]
}

const HOST_FIELDS = ['name', 'address', 'port', 'user', 'auth', 'keyFile', 'role', 'passphrase']

function keyOfText(path: string): string | null {
  const m = /^hosts\[(\d+)\]\.(\w+)$/.exec(path)
  if (m) return HOST_FIELDS.includes(m[2]) ? `hosts.${m[1]}.${m[2]}` : null
  if (path === 'name') return 'name'
  const s = /^settings\.(\w+)$/.exec(path)
  return s ? `settings.${s[1]}` : null
}

export function fieldErrorsOf(input: string | ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): FieldErrors {
  const out: FieldErrors = { fields: {}, rest: [] }
  const put = (key: string | null, msg: string, whole: string) => {
    if (key && !out.fields[key]) out.fields[key] = msg
    else if (!key) out.rest.push(whole)
  }
  if (typeof input !== 'string') {
    for (const i of input) {
      const key = i.path.length === 1 && i.path[0] === 'name' ? 'name' : i.path.map(String).join('.')
      put(/^(name|settings\.\w+|hosts\.\d+\.\w+)$/.test(key) ? key : null, i.message, i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)
    }
    return out
  }
  const text = input.replace(/^invalid testbed: /, '')
  for (const part of text.split('; ')) {
    // `hosts[0] (sw1): key file /x does not exist`: the server's key file checks.
    const kf = /^hosts\[(\d+)\] \([^)]*\): (key file .*)$/.exec(part)
    if (kf) {
      put(`hosts.${kf[1]}.keyFile`, kf[2], part)
      continue
    }
    if (/^a testbed named '.*' already exists$/.test(part)) {
      put('name', part, part)
      continue
    }
    const m = /^([\w.[\]]+): (.*)$/.exec(part)
    put(m ? keyOfText(m[1]) : null, m ? m[2] : part, part)
  }
  return out
}

/** What the form says over its buttons, under the fields, when every problem sits at a field. */
export const FIX_FIELDS = 'Fix the fields marked above.'

/** Problems as the form shows them: each at its field, the rest (or a pointer up to the fields) over its buttons. */
export function formErrors(input: Parameters<typeof fieldErrorsOf>[0]): { fields: Record<string, string>; message: string } {
  const r = fieldErrorsOf(input)
  return { fields: r.fields, message: r.rest.length ? r.rest.join('; ') : FIX_FIELDS }
}
