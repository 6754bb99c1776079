// A TCP listener on 127.0.0.1 that takes each connection and closes it before any byte, as a
// firewall or another service can: an SSH host that cannot be reached. It counts the
// connections, so that a test sees how many times p4lab tried.
import { createServer } from 'node:net'

export interface Dropper {
  port: number
  /** Connections taken so far. */
  connections: () => number
  close: () => Promise<void>
}

export async function dropper(): Promise<Dropper> {
  let taken = 0
  const server = createServer((socket) => {
    taken++
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    connections: () => taken,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
