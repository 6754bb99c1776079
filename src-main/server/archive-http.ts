// Archives in web mode: the browser downloads an export and uploads an import, so the file
// is always one the user picked in the browser, never a path on the server chosen by the
// page. Both sit behind the same token as the page (server.ts checks it first).
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { ARCHIVE_HTTP } from '../contract/names'
import type { Core } from '../core'
import { ArchiveRefusedError, exportExperiment, importArchive } from '../core/archive'
import { archiveFileName } from '../core/handlers/archive'
import { packageRoot } from '../core/paths'
import { SECURITY_HEADERS, sendJson, sendText } from './http'

/** The largest upload taken (compressed); the importer bounds what it unpacks on its own. */
export const MAX_UPLOAD_BYTES = 1024 ** 3

class TooLarge extends Error {}

/** GET /archive/export/<id>: the archive written to a private temporary folder, streamed, then removed. */
export async function downloadExport(core: Core, idText: string, res: ServerResponse): Promise<void> {
  const id = Number(idText)
  const exp = Number.isSafeInteger(id) && id > 0 ? core.opts.store.getExperiment(id) : undefined
  if (!exp) {
    sendText(res, 404, `experiment ${JSON.stringify(idText)} does not exist`)
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-download-'))
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  try {
    const name = archiveFileName(exp.name)
    const r = await exportExperiment({ store: core.opts.store, experimentId: id, out: join(dir, name), dataDir: core.dataDir(), p4Dir: join(packageRoot(), 'p4') })
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'application/gzip',
      'content-length': String(statSync(r.file).size),
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
      'x-p4lab-runs': String(r.runs),
      'x-p4lab-files': String(r.files),
    })
    await pipeline(createReadStream(r.file), res)
  } finally {
    cleanup()
  }
}

/** POST /archive/import[?duplicate=copy]: the body is the archive; the answer is the contract's envelope for archive.import. */
export async function uploadImport(core: Core, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES) {
    sendJson(res, 413, { ok: false, error: { code: 'invalid-request', message: `the archive is ${declared} bytes; uploads are limited to ${MAX_UPLOAD_BYTES} bytes (use p4lab import FILE for larger ones)` } })
    req.resume()
    return
  }
  const shown = (url.searchParams.get('name') ?? 'the upload').replace(/[^\x20-\x7e]/g, '?').slice(0, 200)
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-upload-'))
  try {
    const file = join(dir, 'upload.tar.gz')
    let received = 0
    try {
      await pipeline(
        req,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            received += chunk.length
            if (received > MAX_UPLOAD_BYTES) throw new TooLarge()
            yield chunk
          }
        },
        createWriteStream(file, { mode: 0o600 }),
      )
    } catch (err) {
      if (err instanceof TooLarge) {
        sendJson(res, 413, { ok: false, error: { code: 'invalid-request', message: `${shown}: uploads are limited to ${MAX_UPLOAD_BYTES} bytes (use p4lab import FILE for larger ones)` } })
        return
      }
      throw err
    }
    if (received === 0) {
      sendJson(res, 400, { ok: false, error: { code: 'invalid-request', message: `${shown} is empty: expected a .tar.gz written by p4lab export` } })
      return
    }
    try {
      // ?duplicate=copy imports an archive already here as a copy; otherwise it is left alone and the answer says where it is.
      const onDuplicate = url.searchParams.get('duplicate') === 'copy' ? 'copy' : 'skip'
      const result = await importArchive({ file, store: core.opts.store, dataDir: core.dataDir(), onDuplicate })
      sendJson(res, 200, { ok: true, result })
    } catch (err) {
      if (!(err instanceof ArchiveRefusedError)) throw err
      sendJson(res, 422, { ok: false, error: { code: 'invalid-request', message: `${shown}: ${err.message}` } })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Routes the archive endpoints; false when the path is not one of them. */
export async function routeArchive(core: Core, req: IncomingMessage, url: URL, path: string, res: ServerResponse): Promise<boolean> {
  if (path.startsWith(ARCHIVE_HTTP.export)) {
    if (req.method !== 'GET') sendText(res, 405, 'use GET', { allow: 'GET' })
    else await downloadExport(core, path.slice(ARCHIVE_HTTP.export.length), res)
    return true
  }
  if (path === ARCHIVE_HTTP.import) {
    if (req.method !== 'POST') sendText(res, 405, 'use POST', { allow: 'POST' })
    else await uploadImport(core, req, url, res)
    return true
  }
  return false
}
