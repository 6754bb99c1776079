// What an archive may contain, as paths: relative, '/'-separated, no '.', '..' or empty
// segments, no backslash, drive letter or control character. The same rule checks tar
// entries while extracting and the paths a manifest lists.

export class ArchiveRefusedError extends Error {
  constructor(
    /** The entry (or file) the refusal is about, when there is one. */
    readonly entry: string | null,
    readonly reason: string,
  ) {
    super(entry === null ? `archive refused: ${reason}` : `archive refused: ${JSON.stringify(entry)}: ${reason}`)
    this.name = 'ArchiveRefusedError'
  }
}

/** Why a path may not be in an archive, or null when it may. `dir` allows one trailing '/'. */
export function badEntryPath(path: string, dir = false): string | null {
  if (path.length === 0) return 'an empty path'
  if (path.length > 1024) return 'a path over 1024 characters'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'a control character in the path'
  if (path.includes('\\')) return 'a backslash in the path (only / separates folders)'
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'an absolute path'
  const p = dir && path.endsWith('/') ? path.slice(0, -1) : path
  const segments = p.split('/')
  if (segments.includes('..')) return "a '..' segment (it would leave the destination)"
  if (segments.some((s) => s === '' || s === '.')) return "an empty or '.' segment"
  return null
}

/**
 * A tar entry's path as the archive means it: `tar -C dir .`, the usual way to re-pack a
 * folder, writes every name under a leading './' and adds './' itself for the folder. The one
 * leading './' is dropped (badEntryPath then checks the rest, so './../x' and '././x' are still
 * refused); null for the root entry, which names the destination itself.
 */
export function withoutDotPrefix(path: string): string | null {
  if (path === '.' || path === './') return null
  return path.startsWith('./') ? path.slice(2) : path
}
