// What a command that outlives its terminal needs (p4lab, and `npm run reproduce`, which catch
// SIGHUP to end truthfully): writes to a reader gone or a terminal closed are dropped, not thrown,
// and the exit does not abort on restoring a terminal that is no longer there.
import { closeSync } from 'node:fs'
import { isatty } from 'node:tty'

/**
 * A reader that went away (`p4lab list | head`, or a terminal closed: its writes then fail with
 * EIO) is not an error: the rest of the output is dropped and the command ends as it would have
 * (a run still finishes and is stored, a Slurm submission cut off by the SIGHUP is recorded and
 * cancelled), with its own exit code and no stack trace.
 */
export function quietWhenClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'EIO' && err.code !== 'ERR_STREAM_DESTROYED') throw err
    stream.write = (() => true) as typeof stream.write
  })
}

/**
 * Node (20 among others) restores each terminal it started on as it exits and aborts (SIGABRT,
 * a core) when that fails, as it does once the terminal is closed: a process that handled the
 * SIGHUP would end so, not with its own exit status. Node skips a closed descriptor, so the
 * terminals gone by the exit are closed first.
 */
export function exitWithoutLostTerminals(): void {
  const terminals = [0, 1, 2].filter((fd) => isatty(fd))
  process.on('exit', () => {
    for (const fd of terminals) {
      if (isatty(fd)) continue
      try {
        closeSync(fd)
      } catch {
        // Already closed: nothing left to restore.
      }
    }
  })
}

/** Both of the above for stdout and stderr: call once, at start-up. */
export function surviveClosedTerminal(): void {
  quietWhenClosed(process.stdout)
  quietWhenClosed(process.stderr)
  exitWithoutLostTerminals()
}
