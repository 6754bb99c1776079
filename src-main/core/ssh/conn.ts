// One SSH connection as the pool (pool.ts) holds it: the calls in flight on it, which fail
// when it drops or is closed, and the opening of an SFTP channel on it (exec channels are
// exec.ts's). A session slot (sessions.ts) is taken before any channel opens and given back
// when it closes or fails to open.
import type { Client, SFTPWrapper } from 'ssh2'
import { SshError } from './errors'
import { ConnectionLostError, type ExecChannelHost } from './exec'
import { ChannelRefusedError, type SessionSlot } from './sessions'

export interface Conn extends ExecChannelHost {
  lost: boolean
  inflight: Set<(err: Error) => void>
  hostKey: string
  /** An extra connection for when every session of the first one is busy (./sessions.ts). */
  overflow: boolean
}

/** `side`: how the cancel path's kill runs (a session of its own, with priority). */
export function makeConn(client: Client, label: string, hostKey: string, overflow: boolean, side: (command: string) => Promise<unknown>): Conn {
  const conn: Conn = {
    client,
    label,
    lost: false,
    hostKey,
    overflow,
    inflight: new Set(),
    track(fail) {
      if (conn.lost) {
        fail(new ConnectionLostError(conn.label, true))
        return () => {}
      }
      conn.inflight.add(fail)
      return () => conn.inflight.delete(fail)
    },
    side,
  }
  return conn
}

/** Every call in flight on the connection fails with `err`. */
export function failInflight(conn: Conn, err: () => Error): void {
  for (const f of [...conn.inflight]) f(err())
  conn.inflight.clear()
}

/** Opens an SFTP channel on `conn` in `slot`; fails like exec if the connection drops meanwhile. */
export function sftpOn(conn: Conn, slot: SessionSlot): Promise<{ sftp: SFTPWrapper; conn: Conn }> {
  const label = conn.label
  return new Promise((resolve, reject) => {
    let done = false
    const untrack = conn.track((e) => {
      if (done) return
      done = true
      reject(e)
    })
    try {
      conn.client.sftp((e, sftp) => {
        untrack()
        if (!e) {
          slot.opened()
          sftp.once('close', () => slot.closed())
        }
        if (done) {
          if (!e) sftp.end()
          else slot.closed()
          return
        }
        done = true
        if (!e) return resolve({ sftp, conn })
        if (conn.lost) {
          slot.closed()
          return reject(new ConnectionLostError(label, false, false))
        }
        const why = slot.openFailed(e)
        reject(why instanceof ChannelRefusedError ? why : new SshError('remote', `${label}: cannot start SFTP: ${e.message}`))
      })
    } catch (e) {
      untrack()
      slot.openFailed(e as Error)
      if (done) return
      done = true
      reject(conn.lost ? new ConnectionLostError(label, true) : new SshError('remote', `${label}: cannot start SFTP: ${(e as Error).message}`))
    }
  })
}
