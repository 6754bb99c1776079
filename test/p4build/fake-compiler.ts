// A fake p4c-bm2-ss for tests: a real executable shell script on disk, put first on PATH.
// It appends every invocation to a call log, answers --version, writes the outputs a real
// p4c-bm2-ss writes (-o X.json, --p4runtime-files X.p4info.txtpb), and can replay a real p4c
// transcript on stderr with an exit code (FAKE_P4C_STDERR, FAKE_P4C_EXIT).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface FakeCompiler {
  binDir: string
  log: string
  /** PATH with the fake first. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv
  /** Lines of the call log. */
  calls(): string[]
  /** Compile calls only (not --version). */
  compiles(): string[]
  /** Rewrites the script as another compiler version (a new binary: size and mtime change). */
  upgrade(version: string): void
}

function script(version: string): string {
  return `#!/bin/sh
# fake p4c-bm2-ss for p4lab tests
echo "$*" >> "$FAKE_P4C_LOG"
if [ "$1" = "--version" ]; then
  echo "p4c-bm2-ss"
  echo "Version ${version} (SHA: fake BUILD: Release)"
  exit 0
fi
out=""; info=""; main=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --p4runtime-files) info="$2"; shift 2 ;;
    --p4v) shift 2 ;;
    *) main="$1"; shift ;;
  esac
done
code=0
if [ -n "$FAKE_P4C_STDERR" ]; then
  grep -v '^exit=' "$FAKE_P4C_STDERR" >&2
  code="\${FAKE_P4C_EXIT:-1}"
fi
if [ "$code" != 0 ]; then exit "$code"; fi
[ -f "$main" ] || { echo "error: $main: not found" >&2; exit 1; }
printf '{"program": "%s", "fake": true}\\n' "$main" > "$out"
printf '# fake p4info of %s\\npkg_info {\\n  arch: "v1model"\\n}\\n' "$main" > "$info"
exit 0
`
}

export function fakeCompiler(dir: string, version = '1.2.5.16'): FakeCompiler {
  const binDir = join(dir, 'bin')
  mkdirSync(binDir, { recursive: true })
  const exe = join(binDir, 'p4c-bm2-ss')
  const log = join(dir, 'p4c-calls.log')
  writeFileSync(exe, script(version))
  chmodSync(exe, 0o755)
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])
  return {
    binDir,
    log,
    env: (extra = {}) => ({ ...process.env, PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`, FAKE_P4C_LOG: log, ...extra }),
    calls,
    compiles: () => calls().filter((l) => l !== '--version'),
    upgrade(v: string) {
      writeFileSync(exe, script(v))
      chmodSync(exe, 0o755)
    },
  }
}
