import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'

export const ROOT = join(__dirname, '..', '..')

export interface Started {
  url: string
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

/** Runs `npm start` as a user would (node scripts/start.mjs) and waits for the URL it prints. */
export async function startApp(args: string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 60 s:\n${out}`)), 60_000)
    const check = () => {
      const m = /open (http:\/\/127\.0\.0\.1:\d+\/[?#]token=[\w-]+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout!.on('data', check)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`npm start exited with ${code} before printing a URL:\n${out}`))
    })
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
  return { url, child, output: () => out, stop }
}
