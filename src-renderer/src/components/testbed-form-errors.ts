// Problems with a testbed form, placed at the field they concern: the contract's zod issues
// (path arrays), or the server's text (`hosts[0].address: …`, `hosts[1] (sw1): key file … does not exist`),
// keyed as the form keys its fields: `name`, `settings.rateCeilingBps`, `hosts.0.address`.

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
