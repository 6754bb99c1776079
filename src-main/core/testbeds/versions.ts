// Version strings from what the tools print for `--version` (or `-V`). Each parser
// takes the whole output (stdout and stderr together) and returns the version, or null
// when it cannot tell; it never throws. The formats are those of real tools: see
// test/fixtures/bmv2/versions.txt and test/testbeds/versions.test.ts.

/** A dotted version with an optional pre-release or local suffix: 1.2.5.16, 3.12, 2.3.1b4, 9.7.0-rc1. */
const DOTTED = /(?<![\w.])v?(\d+\.\d+(?:\.\d+)*(?:(?:[-+~][0-9A-Za-z][0-9A-Za-z.]*)|[a-z]+\d*)?)(?![\w])/

function lines(out: string): string[] {
  return out
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
}

/** The first dotted version anywhere in the output. */
export function firstVersion(out: string): string | null {
  for (const l of lines(out)) {
    const m = DOTTED.exec(l)
    if (m) return m[1]
  }
  return null
}

/**
 * p4c and its back ends: `p4c 1.2.4.2 (SHA: … BUILD: …)`, or the name alone on the first
 * line and `Version 1.2.5.16 (SHA: 34b86e9bac BUILD: Release)` on the next.
 */
export function parseP4cVersion(out: string): string | null {
  const m = /\bversion\s+v?(\d+(?:\.\d+)+\S*)/i.exec(out)
  if (m) return m[1]
  return firstVersion(out)
}

/** simple_switch prints the bare version: `1.15.5`. */
export function parseBmv2Version(out: string): string | null {
  return firstVersion(out)
}

/** `Python 3.11.2` (Python 2 printed it on stderr; we read both). */
export function parsePythonVersion(out: string): string | null {
  const m = /\bPython\s+(\d+\.\d+(?:\.\d+)?\S*)/.exec(out)
  return m ? m[1] : firstVersion(out)
}

/** `iperf 3.12 (cJSON 1.7.15)`, then the kernel line; only the first line counts. */
export function parseIperf3Version(out: string): string | null {
  const m = /\biperf\s+(\d+\.\d+(?:\.\d+)?\S*)/.exec(out)
  return m ? m[1] : firstVersion(lines(out)[0] ?? '')
}

/** `ip utility, iproute2-6.1.0, libbpf 1.1.2`, or older `iproute2-ss200127`, or `iproute2-5.15.0`. */
export function parseIpVersion(out: string): string | null {
  const m = /iproute2[-\s]v?([\w.]+?)(?:,|\s|$)/.exec(out)
  return m ? m[1] : firstVersion(out)
}

/** Mininet: `2.3.0` or `2.3.1b4`. */
export function parseMininetVersion(out: string): string | null {
  return firstVersion(out)
}

/** bf-p4c: `bf-p4c 9.7.0 (SHA: … BUILD: …)`; some releases print `Version 9.13.0`. */
export function parseBfP4cVersion(out: string): string | null {
  const m = /\bbf-p4c\s+v?(\d+(?:\.\d+)+\S*)/.exec(out)
  if (m) return m[1]
  return parseP4cVersion(out)
}

/** The SDE's version from its folder name (`bf-sde-9.7.0`), when it says. */
export function sdeVersionFromPath(path: string): string | null {
  const m = /bf-sde-(\d+(?:\.\d+)+)(?![\d.]*\d)/.exec(path)
  return m ? m[1] : null
}

/** The first non-empty line, cut to a readable length, for the "detail" column. */
export function firstLine(out: string, max = 160): string | null {
  const l = lines(out)[0]
  if (l === undefined) return null
  return l.length > max ? l.slice(0, max - 1) + '…' : l
}
