import { readFileSync, realpathSync, statSync } from 'node:fs'
import { join, relative, resolve, isAbsolute } from 'node:path'
import { CDF_KINDS, WORKLOAD_KINDS, type CdfKind, type WorkloadKind } from './types'

// Workload files: which CDF a workload block names, and reading that CDF.

/** A problem found at one of the workload block's fields. */
export interface WorkloadProblem {
  /** Field path inside the experiment file, e.g. ['workload', 'file']. */
  path: Array<string | number>
  message: string
}

export type CdfResult = { ok: true; cdf: Array<[number, number]> } | { ok: false; line: number; message: string }

/**
 * Parses a flow-size CDF: '#' starts a comment; every other non-blank line is
 * "<bytes> <cumulative probability>"; both columns non-decreasing, probabilities in
 * [0, 1], the last one exactly 1.
 */
export function parseCdf(text: string): CdfResult {
  const cdf: Array<[number, number]> = []
  let lastLine = 0
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1
    const content = lines[i].replace(/#.*/, '').trim()
    if (content === '') continue
    const fields = content.split(/[\s,]+/)
    const [bytes, p] = fields.map(Number)
    // The line itself is never quoted: an error must not carry a file's contents anywhere.
    if (fields.length !== 2) {
      return { ok: false, line, message: `expected "<bytes> <cumulative probability>", found ${fields.length} field${fields.length === 1 ? '' : 's'}` }
    }
    if (!Number.isFinite(bytes) || !Number.isFinite(p)) {
      return { ok: false, line, message: `expected "<bytes> <cumulative probability>", found a field that is not a number` }
    }
    if (bytes < 0) return { ok: false, line, message: `flow size ${bytes} is negative` }
    if (p < 0 || p > 1) return { ok: false, line, message: `probability ${p} is outside [0, 1]` }
    const prev = cdf.at(-1)
    if (prev && bytes < prev[0]) return { ok: false, line, message: `flow size ${bytes} is smaller than the previous one (${prev[0]})` }
    if (prev && p < prev[1]) return { ok: false, line, message: `probability ${p} is smaller than the previous one (${prev[1]})` }
    cdf.push([bytes, p])
    lastLine = line
  }
  if (cdf.length === 0) return { ok: false, line: 1, message: 'no "<bytes> <cumulative probability>" lines' }
  const last = cdf[cdf.length - 1][1]
  if (Math.abs(last - 1) > 1e-9) return { ok: false, line: lastLine, message: `the last probability is ${last}; a CDF must end at 1` }
  cdf[cdf.length - 1][1] = 1
  return { ok: true, cdf }
}

/** The largest CDF file read; the shipped ones are a few hundred bytes. */
export const MAX_CDF_BYTES = 1024 * 1024

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p)
  } catch {
    return null
  }
}

function inside(file: string, dir: string): boolean {
  const rel = relative(dir, file)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}

/**
 * A workload file may only come from the workloads folder or the experiment's own folder,
 * links resolved: the experiment text can come from the UI, and must not read arbitrary files.
 */
function outsideAllowed(file: string, dirs: { baseDir: string; workloadsDir: string }): string | null {
  const roots = [...new Set([dirs.workloadsDir, dirs.baseDir].map((d) => resolve(d)))]
  const real = realOrNull(file)
  const ok = roots.some((r) => inside(resolve(file), r) && (real === null || inside(real, realOrNull(r) ?? r)))
  if (ok) return null
  const where = roots.length === 1 ? `the workloads folder ${roots[0]}` : `the workloads folder ${roots[0]} or the experiment's folder ${roots[1]}`
  return `workload file ${file} is outside the folders workloads are read from; put the CDF in ${where} and name it from there`
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Finds and reads the CDF a raw workload block names: its kind's, or for an incast its
 * background's. Runs on the raw YAML value, apart from the schema, so a missing file is
 * reported alongside every other error. Returns undefined when the block is too broken to
 * say which file it means (the schema reports that), and no file for saturating kinds.
 */
export function loadWorkloadCdf(
  raw: unknown,
  dirs: { baseDir: string; workloadsDir: string },
): { ok: true; file?: string; cdf?: Array<[number, number]> } | { ok: false; problems: WorkloadProblem[] } | undefined {
  if (!isPlainObject(raw)) return undefined
  const kind = raw.kind as WorkloadKind
  if (!WORKLOAD_KINDS.includes(kind)) return undefined
  if (kind === 'long-lived' || kind === 'permutation') return { ok: true }
  // The field that names the CDF: kind, or an incast's background.
  const field = kind === 'incast' ? 'background' : 'kind'
  const cdfKind = raw[field] as CdfKind
  if (!CDF_KINDS.includes(cdfKind)) return undefined
  let file: string
  let at: Array<string | number>
  if (cdfKind === 'cdf') {
    if (raw.file === undefined) {
      return { ok: false, problems: [{ path: ['workload', 'file'], message: `required field is missing; ${field} cdf needs file: <path to a CDF file>` }] }
    }
    if (typeof raw.file !== 'string' || raw.file.trim() === '') return undefined
    file = resolve(dirs.baseDir, raw.file.trim())
    at = ['workload', 'file']
  } else {
    if (raw.file !== undefined) {
      return {
        ok: false,
        problems: [{ path: ['workload', 'file'], message: `file is only read with ${field}: cdf; ${field} ${cdfKind} uses the built-in ${cdfKind}.cdf` }],
      }
    }
    file = resolve(join(dirs.workloadsDir, `${cdfKind}.cdf`))
    at = ['workload', field]
  }

  const outside = outsideAllowed(file, dirs)
  if (outside) return { ok: false, problems: [{ path: at, message: outside }] }
  let text: string
  try {
    const st = statSync(file)
    if (st.isDirectory()) return { ok: false, problems: [{ path: at, message: `workload file is a directory: ${file}` }] }
    if (!st.isFile()) return { ok: false, problems: [{ path: at, message: `workload file is not a regular file: ${file}` }] }
    if (st.size > MAX_CDF_BYTES) return { ok: false, problems: [{ path: at, message: `workload file ${file} is ${st.size} bytes; a CDF is at most ${MAX_CDF_BYTES}` }] }
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const message = code === 'ENOENT' ? `workload file not found: ${file}` : `cannot read workload file ${file} (${code ?? 'error'})`
    return { ok: false, problems: [{ path: at, message }] }
  }
  const parsed = parseCdf(text)
  if (!parsed.ok) return { ok: false, problems: [{ path: at, message: `malformed CDF ${file}:${parsed.line}: ${parsed.message}` }] }
  return { ok: true, file, cdf: parsed.cdf }
}
