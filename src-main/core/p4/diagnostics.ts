// Turns p4c and bf-p4c console output into diagnostics with file, line and column.
//
// The p4c front end (shared by p4c-bm2-ss and bf-p4c) prints
//   FILE(LINE): [--Werror=KIND] error: MESSAGE
//   <the source line>
//   <spaces>^^^^        (the caret marks the column)
// and, for some errors, an indented "---- Actual error:" / "---- Originating from:" block that
// belongs to the diagnostic above it. bf-p4c's back end also prints position-less lines such as
//   error: Table placement cannot make any more progress.
// The format is documented by the fixtures in test/fixtures/bmv2 (real p4c 1.2.5.16 output).

export interface P4Diagnostic {
  file: string | null
  line: number | null
  column: number | null
  severity: 'error' | 'warning'
  /** The diagnostic kind from `[--Werror=KIND]`, e.g. `not-found`, `type-error`, `unused`; '' when absent. */
  kind: string
  message: string
  /** Extra lines that explain the diagnostic ("Actual error", "Originating from", ...), or ''. */
  detail: string
}

const POSITIONED = /^(.+?)\((\d+)(?::(\d+))?\):?\s*(?:\[--W(?:error|warn)=([\w-]+)\]\s*)?(error|warning):\s?(.*)$/
const BARE = /^(?:\[--W(?:error|warn)=([\w-]+)\]\s*)?(error|warning):\s?(.*)$/i
const CARETS = /^(\s*)(\^+)\s*$/

export function parseDiagnostics(output: string): P4Diagnostic[] {
  const lines = output.replace(/\r\n/g, '\n').split('\n')
  const out: P4Diagnostic[] = []
  let current: P4Diagnostic | null = null
  let detail: string[] = []
  let sourceLine: string | null = null
  let inDetail = false

  const flush = () => {
    if (current) {
      current.detail = detail.join('\n').trimEnd()
      out.push(current)
    }
    current = null
    detail = []
    sourceLine = null
    inDetail = false
  }

  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '')
    const pos = POSITIONED.exec(line)
    if (pos && !line.startsWith(' ')) {
      flush()
      current = {
        file: pos[1],
        line: Number(pos[2]),
        column: pos[3] ? Number(pos[3]) : null,
        severity: pos[5] as 'error' | 'warning',
        kind: pos[4] ?? '',
        message: pos[6],
        detail: '',
      }
      continue
    }
    const bare = BARE.exec(line)
    if (bare) {
      flush()
      current = {
        file: null,
        line: null,
        column: null,
        severity: bare[2].toLowerCase() as 'error' | 'warning',
        kind: bare[1] ?? '',
        message: bare[3],
        detail: '',
      }
      continue
    }
    if (!current) continue
    if (/^\s*----\s/.test(line)) {
      inDetail = true
      detail.push(line.trim())
      continue
    }
    if (inDetail) {
      if (line.trim() === '') continue
      detail.push(line.replace(/^ {2}/, ''))
      continue
    }
    const caret = CARETS.exec(line)
    if (caret && sourceLine !== null) {
      // p4c aligns the carets under the source line it printed just before.
      if (current.column === null) current.column = caret[1].length + 1
      continue
    }
    if (line.trim() === '' || /^exit=\d+$/.test(line)) continue
    if (sourceLine === null) {
      sourceLine = line
      continue
    }
    // Any further text continues the message (bf-p4c wraps long back-end messages).
    current.message = `${current.message} ${line.trim()}`
  }
  flush()
  return out
}

// Shared with the renderer's build log, which reads them from the contract.
export { actualError, detailSections } from '../../contract/pipelines'
