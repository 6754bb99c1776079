import { parseArgs } from 'node:util'
import { packageVersion, rendererDir } from '../../core/paths'
import { startServer } from '../../server/server'
import { fail, openCore, COMMON_OPTIONS, UsageError, type Command } from '../common'

async function cmdServe(port: number, db: string | undefined): Promise<number> {
  const core = openCore(db)
  const server = await startServer(core, { port, rendererDir: rendererDir() }).catch((err: NodeJS.ErrnoException) => {
    core.opts.store.close()
    if (err.code === 'EADDRINUSE') fail(`--port ${port}: 127.0.0.1:${port} is in use by another program; choose another --port, or 0 for a free one`, 1)
    if (err.code === 'EACCES') fail(`--port ${port}: this user may not listen on port ${port}; choose a port above 1023, or 0 for a free one`, 1)
    throw err
  })
  core.watchInterrupted()
  const stopSlurm = core.followSlurm()
  process.stdout.write(`p4lab ${packageVersion()} is serving the app (database ${core.opts.store.file})\n`)
  process.stdout.write(`open ${server.url}\n`)
  const stop = async () => {
    core.orchestrator.cancelAll()
    await stopSlurm()
    await server.close()
    core.opts.store.close()
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return new Promise<number>(() => {})
}

export const serveCommand: Command = {
  name: 'serve',
  usage: ['serve [--port N] [--db PATH]', '    serve the app on 127.0.0.1 and print its URL'],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON_OPTIONS, port: { type: 'string' } } })
    if (positionals.length > 0) throw new UsageError('serve takes no arguments')
    const port = values.port === undefined ? 0 : Number(values.port)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got '${values.port}'`)
    return cmdServe(port, values.db)
  },
}
