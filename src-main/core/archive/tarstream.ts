// A strict tar reader as a Writable, so it sits at the end of a pipeline and its pace is
// the pipeline's pace (back-pressure: nothing is read faster than entries are written).
// Header fields are decoded by the `tar` package (ustar, pax and GNU long names); the
// framing is ours, because we must know where the archive ends: after the end-of-archive
// marker (two zero blocks) only the zero padding of the last record may follow. tar's own
// Parser keeps appending whatever follows the marker to one growing buffer, which made a
// small gzip of zeros take minutes and hundreds of MB.
import { Writable } from 'node:stream'
import { Header, Pax, type HeaderData } from 'tar'
import { ArchiveRefusedError } from './entries'

const BLOCK = 512
/** Tar writers pad the archive to a whole record of 20 blocks. */
export const RECORD = 20 * BLOCK

export interface TarEntry {
  path: string
  /** tar's type name: File, Directory, SymbolicLink, ... */
  type: string
  size: number
  linkpath: string
}

/** Receives an entry's bytes; `end` is called once all of them were given. */
export interface TarSink {
  data(chunk: Buffer): void
  end(): void
}

export interface TarReaderOptions {
  /** Largest pax or long-name block accepted. */
  maxMetaBytes: number
  /** Called for each entry before any of its bytes; throws to refuse it. Returns where its bytes go. */
  entry(e: TarEntry): TarSink
}

const META_TYPES = new Set(['ExtendedHeader', 'GlobalExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath', 'OldExtendedHeader'])

function allZero(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false
  return true
}

export class TarReader extends Writable {
  private readonly header = Buffer.alloc(BLOCK)
  private headerFill = 0
  /** Bytes of the archive consumed so far. */
  private offset = 0
  private state: 'header' | 'body' | 'meta' | 'pad' | 'end' = 'header'
  private remaining = 0
  private padding = 0
  private sink: TarSink | null = null
  private meta: { type: string; parts: Buffer[]; size: number } | null = null
  private ex: HeaderData = {}
  private gex: HeaderData = {}
  private sawNullBlock = false
  /** Where the trailing zeros must stop: the end of the record holding the end marker. */
  private paddedEnd = 0

  constructor(private readonly o: TarReaderOptions) {
    super()
  }

  /** True once the end-of-archive marker was read. */
  get complete(): boolean {
    return this.state === 'end'
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    try {
      this.feed(chunk)
      cb()
    } catch (err) {
      cb(err as Error)
    }
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.state !== 'end') {
      const where = this.state === 'header' && this.headerFill === 0 ? 'without the end-of-archive marker' : 'in the middle of an entry'
      cb(new ArchiveRefusedError(null, `not a valid tar archive: it ends ${where} (truncated?)`))
      return
    }
    cb()
  }

  private feed(chunk: Buffer): void {
    let pos = 0
    while (pos < chunk.length) {
      switch (this.state) {
        case 'header': {
          const n = Math.min(BLOCK - this.headerFill, chunk.length - pos)
          chunk.copy(this.header, this.headerFill, pos, pos + n)
          this.headerFill += n
          pos += n
          this.offset += n
          if (this.headerFill === BLOCK) {
            this.headerFill = 0
            this.onHeader()
          }
          break
        }
        case 'body': {
          const n = Math.min(this.remaining, chunk.length - pos)
          this.sink!.data(chunk.subarray(pos, pos + n))
          this.remaining -= n
          pos += n
          this.offset += n
          if (this.remaining === 0) this.endEntry()
          break
        }
        case 'meta': {
          const n = Math.min(this.remaining, chunk.length - pos)
          this.meta!.parts.push(Buffer.from(chunk.subarray(pos, pos + n)))
          this.remaining -= n
          pos += n
          this.offset += n
          if (this.remaining === 0) this.endMeta()
          break
        }
        case 'pad': {
          const n = Math.min(this.padding, chunk.length - pos)
          this.padding -= n
          pos += n
          this.offset += n
          if (this.padding === 0) this.state = 'header'
          break
        }
        case 'end': {
          const rest = chunk.subarray(pos)
          if (this.offset + rest.length > this.paddedEnd || !allZero(rest)) {
            throw new ArchiveRefusedError(null, `data after the end-of-archive marker (at byte ${this.paddedEnd} of the tar, beyond its padding); the archive was altered`)
          }
          this.offset += rest.length
          pos = chunk.length
          break
        }
      }
    }
  }

  private onHeader(): void {
    const block = this.header
    if (allZero(block)) {
      if (this.sawNullBlock) {
        this.state = 'end'
        this.paddedEnd = Math.ceil(this.offset / RECORD) * RECORD
      }
      this.sawNullBlock = true
      return
    }
    this.sawNullBlock = false
    let h: Header
    try {
      h = new Header(block, 0, this.ex, this.gex)
    } catch (err) {
      throw new ArchiveRefusedError(null, `not a valid tar archive: unreadable header at byte ${this.offset - BLOCK} (${(err as Error).message})`)
    }
    if (!h.cksumValid) throw new ArchiveRefusedError(null, `not a valid tar archive: bad header checksum at byte ${this.offset - BLOCK}`)
    const size = h.size
    if (size === undefined || !Number.isSafeInteger(size) || size < 0) {
      throw new ArchiveRefusedError(h.path ?? null, `not a valid tar archive: the header at byte ${this.offset - BLOCK} declares size ${String(size)}`)
    }
    const type = h.type
    this.padding = (BLOCK - (size % BLOCK)) % BLOCK
    if (META_TYPES.has(type)) {
      if (size > this.o.maxMetaBytes) throw new ArchiveRefusedError(h.path ?? null, `a ${type} block of ${size} bytes (more than ${this.o.maxMetaBytes})`)
      this.meta = { type, parts: [], size }
      this.remaining = size
      if (size === 0) this.endMeta()
      else this.state = 'meta'
      return
    }
    this.ex = {}
    const path = h.path ?? ''
    this.sink = this.o.entry({ path, type, size, linkpath: h.linkpath ?? '' })
    this.remaining = size
    if (size === 0) this.endEntry()
    else this.state = 'body'
  }

  private endEntry(): void {
    const sink = this.sink!
    this.sink = null
    sink.end()
    this.state = this.padding > 0 ? 'pad' : 'header'
  }

  private endMeta(): void {
    const { type, parts } = this.meta!
    this.meta = null
    const body = Buffer.concat(parts)
    if (type === 'ExtendedHeader' || type === 'OldExtendedHeader') {
      this.ex = { ...this.ex, ...stripped(Pax.parse(body.toString('utf8'), this.ex, false)) }
    } else if (type === 'GlobalExtendedHeader') {
      this.gex = { ...this.gex, ...stripped(Pax.parse(body.toString('utf8'), this.gex, true)) }
    } else if (type === 'NextFileHasLongPath') {
      this.ex = { ...this.ex, path: body.toString('utf8').replace(/\0.*/s, '') }
    } else {
      this.ex = { ...this.ex, linkpath: body.toString('utf8').replace(/\0.*/s, '') }
    }
    this.state = this.padding > 0 ? 'pad' : 'header'
  }
}

/** A Pax's own fields, without its `global` flag and methods. */
function stripped(p: Pax): HeaderData {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(p)) if (k !== 'global' && v !== undefined) out[k] = v
  return out as HeaderData
}
